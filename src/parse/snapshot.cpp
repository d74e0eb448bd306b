#include "inferlint/parse/snapshot.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

namespace inferlint {

const prom::Metrics& Snapshot::metrics() const {
    if (!metrics_)
        metrics_ = std::make_shared<prom::Metrics>(prom::parse_or_throw(text, source.empty() ? url : source));
    return *metrics_;
}

prom::Metrics Snapshot::metrics_only(const prom::NameFilter& names) const {
    return prom::parse_or_throw(text, source.empty() ? url : source, &names);
}

Json Snapshot::to_json() const {
    Json j = Json::object();
    j["schema"] = kSnapshotSchema;
    j["url"] = url;
    j["t_wall"] = std::isnan(t_wall) ? Json(nullptr) : Json(t_wall);
    j["t_mono_ns"] = or_null(t_mono_ns);
    j["latency_s"] = or_null(latency_s);
    j["text"] = text;
    return j;
}

void Snapshot::save(const std::filesystem::path& path) const {
    util::write_file(path, to_json().dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
}

namespace {

double number_field(const nlohmann::json& doc, const char* key, const std::string& source, bool required) {
    auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) {
        if (required) throw InputError(fmt::format("{}: snapshot has no '{}'", source, key));
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (!it->is_number()) throw InputError(fmt::format("{}: snapshot field '{}' is not a number", source, key));
    return it->get<double>();
}

}  // namespace

Snapshot snapshot_from_text(const std::string& raw, const std::string& source) {
    if (util::looks_binary(raw))
        throw InputError(fmt::format("{}: binary data, not a snapshot or Prometheus text", source));
    std::size_t first = raw.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw InputError(fmt::format("{}: empty file", source));
    Snapshot s;
    s.source = source;
    if (raw[first] == '{') {
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(raw);
        } catch (const nlohmann::json::parse_error& e) {
            throw InputError(fmt::format("{}: not valid JSON (truncated?) at byte {}", source, e.byte));
        } catch (const nlohmann::json::exception&) {  // a number out of double's range: 1e999
            throw InputError(fmt::format("{}: not valid JSON (a number out of range)", source));
        }
        if (!doc.is_object()) throw InputError(fmt::format("{}: not an {} document", source, kSnapshotSchema));
        auto schema = doc.find("schema");
        if (schema == doc.end() || !schema->is_string() || *schema != kSnapshotSchema)
            throw InputError(fmt::format("{}: not an {} document (schema={})", source, kSnapshotSchema,
                                         schema == doc.end() ? "none" : schema->dump()));
        auto url = doc.find("url");
        auto text = doc.find("text");
        if (url == doc.end() || !url->is_string())
            throw InputError(fmt::format("{}: snapshot has no 'url' string", source));
        if (text == doc.end() || !text->is_string())
            throw InputError(fmt::format("{}: snapshot has no 'text' string", source));
        s.url = url->get<std::string>();
        s.text = text->get<std::string>();
        s.t_wall = number_field(doc, "t_wall", source, true);
        double mono = number_field(doc, "t_mono_ns", source, false);
        if (!std::isnan(mono)) s.t_mono_ns = static_cast<long long>(mono);
        double lat = number_field(doc, "latency_s", source, false);
        if (!std::isnan(lat)) s.latency_s = lat;
    } else {
        s.url = "file:" + std::filesystem::path(source).filename().string();
        s.text = raw;
        s.t_wall = std::numeric_limits<double>::quiet_NaN();
    }
    // Parse now, so a broken line is reported at load with the file's name.
    (void)s.metrics();
    return s;
}

Snapshot load_snapshot(const std::filesystem::path& path) {
    return snapshot_from_text(util::read_file(path), path.string());
}

Span span_s(const Snapshot& a, const Snapshot& b) {
    double wall = b.t_wall - a.t_wall;
    double unc = (a.latency_s.value_or(0.0) + b.latency_s.value_or(0.0)) / 2;
    if (a.t_mono_ns && b.t_mono_ns) {
        double mono = static_cast<double>(*b.t_mono_ns - *a.t_mono_ns) / 1e9;
        if (!std::isnan(wall) && std::fabs(mono - wall) > 1.0)
            throw std::runtime_error(
                fmt::format("monotonic span {:.3f}s and wall span {:.3f}s disagree; snapshots from different host "
                            "boots, or the wall clock stepped",
                            mono, wall));
        return {mono, unc};
    }
    if (std::isnan(wall))
        throw std::runtime_error("snapshots carry no clock (bare Prometheus text); no span available");
    return {wall, unc};
}

std::vector<CreatedChange> created_changes(const Snapshot& a, const Snapshot& b) {
    std::map<std::pair<std::string, prom::Labels>, double> before;
    for (const auto& s : a.metrics().samples())
        if (s.name.ends_with("_created")) before.emplace(std::pair{s.name, s.labels}, s.value);
    std::vector<CreatedChange> changed;
    for (const auto& s : b.metrics().samples()) {
        if (!s.name.ends_with("_created")) continue;
        auto it = before.find(std::pair{s.name, s.labels});
        if (it != before.end() && it->second != s.value) changed.push_back({s.name, it->second, s.value});
    }
    return changed;
}

namespace {

// Python's "{:g}" formatting, for messages.
std::string g(double v) { return fmt::format("{:g}", v); }

}  // namespace

Deltas::Deltas(const Snapshot& before, const Snapshot& after) : before_(before), after_(after) {
    auto moved = created_changes(before, after);
    if (moved.empty()) return;
    const auto& m = moved.front();
    Json ev = Json::object();
    ev["created_changed"] = moved.size();
    ev["example"] = m.name;
    ev["before"] = m.before;
    ev["after"] = m.after;
    restart_ = Restart{fmt::format("server restarted between snapshots ({} *_created stamps moved, e.g. {}: {:.3f} "
                                   "-> {:.3f})",
                                   moved.size(), m.name, m.before, m.after),
                       ev};
}

std::optional<double> Deltas::operator()(const std::string& name, const std::string& witness,
                                         const prom::LabelFilter& labels) {
    if (restart_) return std::nullopt;
    auto value = [&](const Snapshot& s) -> std::optional<double> {
        auto v = s.metrics().total(name, labels);
        if (!v && !witness.empty() && s.metrics().has(witness)) return 0.0;
        return v;
    };
    auto v0 = value(before_), v1 = value(after_);
    if (!v0 || !v1) return std::nullopt;
    if (*v1 < *v0) {
        Json ev = Json::object();
        ev["counter"] = name;
        ev["before"] = *v0;
        ev["after"] = *v1;
        restart_ =
            Restart{fmt::format("{} went down ({} -> {}); counters only reset on restart", name, g(*v0), g(*v1)), ev};
        return std::nullopt;
    }
    return *v1 - *v0;
}

const Engine* snapshot_engine(const std::vector<const Snapshot*>& snapshots) {
    std::vector<std::string> names;
    for (const Snapshot* s : snapshots) {
        auto n = s->metrics().names();
        names.insert(names.end(), n.begin(), n.end());
    }
    return named_by(names);
}

}  // namespace inferlint
