#include "inferlint/parse/dcgm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace inferlint::parse {

namespace {

std::string dcgm_label(const PromSeries& s, const char* exported, const char* plain) {
    for (const char* key : {exported, plain})
        if (auto it = s.labels.find(key); it != s.labels.end() && !it->second.empty()) return it->second;
    return {};
}

}  // namespace

std::string dcgm_pod_of(const PromSeries& s) { return dcgm_label(s, "exported_pod", "pod"); }
std::string dcgm_namespace_of(const PromSeries& s) { return dcgm_label(s, "exported_namespace", "namespace"); }

std::vector<DcgmReading> dcgm_readings(const PromAnswer& answer) {
    std::vector<DcgmReading> out;
    for (const auto& s : answer.series) {
        DcgmReading base;
        base.uuid = dcgm_label(s, "UUID", "uuid");
        if (base.uuid.empty()) continue;
        auto get = [&](const char* key) {
            auto it = s.labels.find(key);
            return it == s.labels.end() ? std::string() : it->second;
        };
        base.gpu = get("gpu");
        base.host = get("Hostname");
        base.model = get("modelName");
        base.pod = dcgm_pod_of(s);
        base.space = dcgm_namespace_of(s);
        base.container = dcgm_label(s, "exported_container", "container");
        for (const auto& x : s.samples) {
            if (!std::isfinite(x.value) || x.value < 0) continue;
            DcgmReading r = base;
            r.t = x.t;
            r.mib = x.value;
            out.push_back(std::move(r));
        }
    }
    std::sort(out.begin(), out.end(), [](const DcgmReading& a, const DcgmReading& b) {
        return a.t != b.t ? a.t < b.t : a.uuid != b.uuid ? a.uuid < b.uuid : a.pod < b.pod;
    });
    return out;
}

std::string dcgm_pod_words(const DcgmReading& r) { return r.space.empty() ? r.pod : r.space + "/" + r.pod; }

std::string dcgm_gpu_words(const DcgmReading& r) {
    std::string out = fmt::format("GPU {}", r.gpu.empty() ? "?" : r.gpu);
    if (!r.host.empty()) out += " on " + r.host;
    return out + fmt::format(" ({})", r.uuid);
}

}  // namespace inferlint::parse
