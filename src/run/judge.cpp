// The one path from a run's files to its verdicts, and xray's live record beside them.
#include "inferlint/run/judge.hpp"

#include "inferlint/run/run_folder.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace inferlint::run {

namespace fs = std::filesystem;

namespace {

constexpr std::array kStatuses = {Status::pass, Status::warn, Status::fail, Status::unknown, Status::not_applicable};

// One verdict as CheckResult::to_json writes it; nullopt when it is not one.
std::optional<CheckResult> verdict_from_json(const Json& j) {
    if (!j.is_object() || !j.contains("tripwire") || !j["tripwire"].is_string() || !j.contains("status") ||
        !j["status"].is_string() || !j.contains("message") || !j["message"].is_string())
        return std::nullopt;
    auto id = tripwire_id(j["tripwire"].get<std::string>());
    if (!id) return std::nullopt;
    CheckResult r;
    r.tripwire = *id;
    const std::string status = j["status"].get<std::string>();
    bool known = false;
    for (Status s : kStatuses)
        if (status_value(s) == status) r.status = s, known = true;
    if (!known) return std::nullopt;
    r.message = j["message"].get<std::string>();
    if (j.contains("evidence") && j["evidence"].is_object()) r.evidence = j["evidence"];
    return r;
}

template <typename T>
std::optional<T> field(const Json& doc, const char* key, const fs::path& path) {
    if (!doc.contains(key) || doc[key].is_null()) return std::nullopt;
    const Json& v = doc[key];
    if constexpr (std::is_same_v<T, long long>) {
        if (v.is_number_integer()) return v.get<long long>();
    } else {
        if (v.is_string()) return v.get<std::string>();
    }
    throw InputError(fmt::format("{}: \"{}\" has the wrong type", path.string(), key));
}

// A fleet's record: its replicas (each a plain folder name under the run's) and a window
// that is one (finite, start before end, a positive step).
FleetRecord fleet_record(const Json& j, const fs::path& path) {
    auto bad = [&](const std::string& why) { return InputError(fmt::format("{}: \"fleet\" {}", path.string(), why)); };
    if (!j.is_object() || !j.contains("replicas") || !j["replicas"].is_array()) throw bad("has no list of replicas");
    FleetRecord f;
    for (const auto& r : j["replicas"]) {
        if (!r.is_object() || !r.contains("name") || !r["name"].is_string() || !r.contains("url") ||
            !r["url"].is_string() || !r.contains("folder") || !r["folder"].is_string())
            throw bad("has a replica without a name, url and folder: " + r.dump());
        FleetRecord::Replica rep{r["name"].get<std::string>(), r["url"].get<std::string>(),
                                 r["folder"].get<std::string>()};
        const fs::path folder(rep.folder);
        if (rep.folder.empty() || folder.is_absolute() || folder.has_parent_path() || rep.folder == "." ||
            rep.folder == "..")
            throw bad("names a replica folder that is not one under the run's: " + rep.folder);
        f.replicas.push_back(std::move(rep));
    }
    if (f.replicas.empty()) throw bad("has no replicas");
    for (auto [key, out] : {std::pair{"start", &f.start_s}, std::pair{"end", &f.end_s}, std::pair{"step", &f.step_s}}) {
        if (!j.contains(key) || !j[key].is_number()) throw bad(fmt::format("has no number \"{}\"", key));
        *out = j[key].get<double>();
    }
    if (!std::isfinite(f.start_s) || !std::isfinite(f.end_s) || !(f.end_s >= f.start_s) || !std::isfinite(f.step_s) ||
        !(f.step_s > 0))
        throw bad("has a window that is not one (start, end, step)");
    return f;
}

}  // namespace

void write_live_record(const fs::path& folder, const LiveRecord& record) {
    Json doc = Json::object();
    doc["schema"] = kLiveSchema;
    Json verdicts = Json::array();
    for (const auto& r : record.verdicts) verdicts.push_back(r.to_json());
    doc["verdicts"] = std::move(verdicts);
    doc["requested"] = or_null(record.requested);
    doc["unique_prompts"] = or_null(record.unique_prompts);
    doc["server_version"] = or_null(record.server_version);
    doc["bench_result"] = or_null(record.bench_result);
    if (record.max_failed_share) doc["max_failed_share"] = *record.max_failed_share;
    if (record.after_missing) doc["after_missing"] = *record.after_missing;
    if (record.fleet) {
        Json replicas = Json::array();
        for (const auto& r : record.fleet->replicas)
            replicas.push_back({{"name", r.name}, {"url", r.url}, {"folder", r.folder}});
        doc["fleet"] = {{"replicas", std::move(replicas)},
                        {"start", record.fleet->start_s},
                        {"end", record.fleet->end_s},
                        {"step", record.fleet->step_s}};
    }
    util::write_file(folder / kLiveFile, doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
}

std::optional<LiveRecord> read_live_record(const fs::path& folder) {
    const fs::path path = folder / kLiveFile;
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    const std::string text = util::read_file(path, util::AllowEmpty::no);
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw InputError(fmt::format("{}: not a JSON object (xray's live record)", path.string()));
    if (!doc.contains("schema") || doc["schema"] != kLiveSchema)
        throw InputError(fmt::format("{}: not an {} document", path.string(), kLiveSchema));
    LiveRecord rec;
    if (doc.contains("verdicts")) {
        if (!doc["verdicts"].is_array()) throw InputError(fmt::format("{}: \"verdicts\" is not a list", path.string()));
        for (const auto& v : doc["verdicts"]) {
            auto r = verdict_from_json(v);
            if (!r) throw InputError(fmt::format("{}: a verdict that is not one: {}", path.string(), v.dump()));
            rec.verdicts.push_back(std::move(*r));
        }
    }
    rec.requested = field<long long>(doc, "requested", path);
    rec.unique_prompts = field<std::string>(doc, "unique_prompts", path);
    rec.server_version = field<std::string>(doc, "server_version", path);
    rec.bench_result = field<std::string>(doc, "bench_result", path);
    if (doc.contains("max_failed_share") && !doc["max_failed_share"].is_null()) {
        const Json& v = doc["max_failed_share"];
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1))
            throw InputError(fmt::format("{}: \"max_failed_share\" is not a share from 0 to 1", path.string()));
        rec.max_failed_share = v.get<double>();
    }
    rec.after_missing = field<std::string>(doc, "after_missing", path);
    if (doc.contains("fleet") && !doc["fleet"].is_null()) rec.fleet = fleet_record(doc["fleet"], path);
    return rec;
}

JudgeInput folder_input(const fs::path& folder) {
    JudgeInput in;
    const RunFiles found = find_run_files(folder);
    if (found.boot_log) in.files.boot_logs.push_back(*found.boot_log);
    in.files.before = found.before;
    in.files.after = found.after;
    in.files.series = found.series;
    in.files.bench = found.bench;
    in.files.load_log = found.load_log;
    in.files.gpu = found.gpu;
    in.live = read_live_record(folder);
    if (in.live) in.files.bench = in.live->bench_result ? std::optional(folder / *in.live->bench_result) : std::nullopt;
    return in;
}

std::optional<LoadedRun> load_judged(const JudgeInput& in, checks::RunVerdicts& verdicts) {
    auto loaded = load_run(in.files, in.named, in.accept);
    if (!loaded) return std::nullopt;
    checks::RunEvidence& ev = loaded->evidence;
    const LiveRecord* live = in.live ? &*in.live : nullptr;
    if (live) {
        ev.live = live->verdicts;
        // SGLang's log prints no version: the one its server reported, as xray read it.
        if (live->server_version && !ev.boots.empty() && !ev.boots.front().facts.vllm_version)
            ev.boots.front().facts.server_version = live->server_version;
        if (live->unique_prompts) ev.unique_prompts = live->unique_prompts;
    }
    if (in.unique_prompts) ev.unique_prompts = in.unique_prompts;
    ev.requested = in.requested;
    if (in.max_failed_share)
        ev.max_failed_share = *in.max_failed_share;
    else if (live && live->max_failed_share)
        ev.max_failed_share = *live->max_failed_share;
    if (!ev.requested && live && live->requested) ev.requested = checks::Requested::of(*live->requested);
    if (!ev.requested && ev.bench && ev.bench->max_concurrency)
        ev.requested = checks::Requested::of(*ev.bench->max_concurrency);
    verdicts = checks::check_run(ev);
    return loaded;
}

}  // namespace inferlint::run
