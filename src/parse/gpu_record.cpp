#include "inferlint/parse/gpu_record.hpp"

#include "util/text.hpp"

#include <charconv>

namespace inferlint::parse {

namespace {

using util::text::trim;

std::vector<std::string_view> gpu_fields_of(std::string_view line) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        auto comma = line.find(',', start);
        parts.push_back(trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return parts;
}

std::vector<std::string_view> gpu_lines_of(std::string_view text) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0; start < text.size();) {
        auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view line = trim(text.substr(start, nl - start));
        if (!line.empty()) out.push_back(line);
        start = nl + 1;
    }
    return out;
}

template <typename T>
std::optional<T> gpu_whole(std::string_view s) {
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

// A MiB figure; "[N/A]" and "[Not Supported]" are no reading, anything else is garbage.
bool gpu_mib_field(std::string_view s, std::optional<long long>& out) {
    if (s.starts_with('[') && s.ends_with(']')) return true;
    out = gpu_whole<long long>(s);
    return out.has_value() && *out >= 0;
}

}  // namespace

std::optional<std::vector<GpuMemory>> parse_gpu_memory(std::string_view text) {
    std::vector<GpuMemory> out;
    for (std::string_view line : gpu_lines_of(text)) {
        auto f = gpu_fields_of(line);
        if (f.size() != 3) return std::nullopt;
        GpuMemory g;
        auto index = gpu_whole<int>(f[0]);
        if (!index || *index < 0 || !f[1].starts_with("GPU-") || !gpu_mib_field(f[2], g.used_mib)) return std::nullopt;
        g.index = *index;
        g.uuid = std::string(f[1]);
        out.push_back(std::move(g));
    }
    if (out.empty()) return std::nullopt;
    return out;
}

std::optional<std::vector<ComputeApp>> parse_compute_apps(std::string_view text) {
    std::vector<ComputeApp> out;
    for (std::string_view line : gpu_lines_of(text)) {
        if (line.starts_with("No running processes found")) continue;  // older drivers say so even in CSV
        auto f = gpu_fields_of(line);
        if (f.size() < 4) return std::nullopt;
        ComputeApp a;
        auto pid = gpu_whole<long long>(f[0]);
        if (!pid || *pid <= 0 || !gpu_mib_field(f[f.size() - 2], a.used_mib) || !f.back().starts_with("GPU-"))
            return std::nullopt;
        a.pid = *pid;
        for (std::size_t i = 1; i + 2 < f.size(); ++i) a.name += std::string(i > 1 ? ", " : "") + std::string(f[i]);
        a.gpu_uuid = std::string(f.back());
        out.push_back(std::move(a));
    }
    return out;
}

Json gpu_header_json(double interval_s) { return {{"schema", "inferlint.gpu/1"}, {"interval_s", interval_s}}; }

Json gpu_sample_json(const GpuSample& s) {
    Json j = {{"t_s", s.t_s}};
    if (s.error) {
        j["error"] = *s.error;
        return j;
    }
    Json gpus = Json::array(), apps = Json::array();
    for (const auto& g : s.gpus)
        gpus.push_back({{"index", g.index}, {"uuid", g.uuid}, {"used_mib", or_null(g.used_mib)}});
    for (const auto& a : s.apps)
        apps.push_back({{"pid", a.pid}, {"name", a.name}, {"used_mib", or_null(a.used_mib)}, {"gpu_uuid", a.gpu_uuid}});
    j["gpus"] = std::move(gpus);
    j["apps"] = std::move(apps);
    j["server_pids"] = s.server_pids;
    return j;
}

namespace {

std::optional<long long> gpu_opt_int(const Json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer()) throw std::invalid_argument(key);
    return it->get<long long>();
}

GpuSample gpu_sample_of(const Json& j) {
    GpuSample s;
    s.t_s = j.at("t_s").get<double>();
    if (j.contains("error")) {
        s.error = j.at("error").get<std::string>();
        return s;
    }
    for (const auto& g : j.at("gpus"))
        s.gpus.push_back({g.at("index").get<int>(), g.at("uuid").get<std::string>(), gpu_opt_int(g, "used_mib")});
    for (const auto& a : j.at("apps"))
        s.apps.push_back({a.at("pid").get<long long>(), a.at("name").get<std::string>(), gpu_opt_int(a, "used_mib"),
                          a.at("gpu_uuid").get<std::string>()});
    for (const auto& p : j.at("server_pids")) s.server_pids.push_back(p.get<long long>());
    return s;
}

}  // namespace

std::optional<GpuRecording> parse_gpu_recording(std::string_view text) {
    GpuRecording rec;
    bool header = false;
    for (std::string_view line : gpu_lines_of(text)) {
        Json j = Json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            ++rec.skipped_lines;
            continue;
        }
        if (j.value("schema", "") == "inferlint.gpu/1") {
            header = true;
            if (auto it = j.find("interval_s"); it != j.end() && it->is_number()) rec.interval_s = it->get<double>();
            continue;
        }
        try {
            rec.samples.push_back(gpu_sample_of(j));
        } catch (const std::exception&) {
            ++rec.skipped_lines;
        }
    }
    if (!header) return std::nullopt;
    return rec;
}

}  // namespace inferlint::parse
