// T19 and T2 from DCGM through Prometheus (run/prometheus_dcgm.hpp).
#include "inferlint/run/prometheus_dcgm.hpp"
#include "prometheus_internal.hpp"

#include "inferlint/checks/dcgm_gpu.hpp"
#include "inferlint/util/url.hpp"

#include <fmt/format.h>

#include <set>

namespace inferlint::run {

using namespace detail;

namespace {

// A value as an exact match inside a PromQL regex string: the regex's metacharacters
// escaped, and the backslash doubled for the string.
std::string dcgm_regex_exact(const std::string& v) {
    std::string out;
    for (char c : v) {
        if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) out += "\\\\";
        if (c == '"') out += '\\';
        out += c;
    }
    return out;
}

std::string dcgm_alternatives(const std::set<std::string>& values) {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : "|") + dcgm_regex_exact(v);
    return out;
}

}  // namespace

CheckResult dcgm_gpu_shared(const PromSource& src, const FleetWindow& f, long long growth_threshold_mib) {
    std::vector<std::string> pods;
    for (const auto& r : f.replicas) pods.push_back(r.name);
    if (f.replica_key != "pod") {
        CheckResult r{.tripwire = TripwireId::T19};
        r.message = fmt::format(
            "Can't tell: the replicas are told apart by {}, not by pod, so their GPUs cannot be found in DCGM's "
            "series (dcgm-exporter names the pod a GPU is given to)",
            f.replica_key);
        r.evidence = {{"source", "dcgm"}};
        return r;
    }
    const std::string alt = dcgm_alternatives({pods.begin(), pods.end()});
    const std::string used = parse::kDcgmFbUsed;
    const std::string q1 = fmt::format(R"({0}{{pod=~"{1}"}} or {0}{{exported_pod=~"{1}"}})", used, alt);
    const double step = f.step_s > 0 ? f.step_s : 15.0;
    const parse::PromAnswer mine = prom_range(src, q1, f.window.start, f.window.end, step, pods.size());
    std::set<std::string> uuids;
    for (const auto& x : parse::dcgm_readings(mine)) uuids.insert(x.uuid);
    if (uuids.empty()) return checks::check_gpu_shared_dcgm({}, pods, q1, growth_threshold_mib);
    const std::string q2 = fmt::format(R"({0}{{UUID=~"{1}"}} or {0}{{uuid=~"{1}"}})", used, dcgm_alternatives(uuids));
    const parse::PromAnswer all = prom_range(src, q2, f.window.start, f.window.end, step, uuids.size() * 2);
    return checks::check_gpu_shared_dcgm(parse::dcgm_readings(all), pods, q2, growth_threshold_mib);
}

DcgmNode read_dcgm_node(const PromSource& src, const std::string& node, double at) {
    const std::string inner = prom_matchers(src.selector);
    const std::string more = node.empty() ? std::string() : prom_label_matcher("Hostname", node);
    DcgmNode out;
    const std::string q_used = parse::kDcgmFbUsed + prom_with(inner, more);
    out.used = parse::dcgm_readings(prom_instant(src, q_used, at));
    if (out.used.empty()) {
        out.why =
            fmt::format("{} found no GPU at {} in {}: is dcgm-exporter scraped{}?", q_used, prom_moment_text(at),
                        util::normalise_base_url(src.url), node.empty() ? "" : ", and is the node's name its Hostname");
        return out;
    }
    out.free = parse::dcgm_readings(prom_instant(src, parse::kDcgmFbFree + prom_with(inner, more), at));
    return out;
}

}  // namespace inferlint::run
