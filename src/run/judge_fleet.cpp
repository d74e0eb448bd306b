// A fleet's xray run folder, read as xray and `report DIR` both judge it.
#include "inferlint/run/judge_fleet.hpp"

#include "inferlint/checks/t19_gpu_shared.hpp"
#include "inferlint/parse/loadlog.hpp"
#include "inferlint/run/loader.hpp"
#include "inferlint/util/error.hpp"

#include <fmt/format.h>

namespace inferlint::run {

namespace fs = std::filesystem;

namespace {

// One replica's folder as `report` reads a run folder, its live record (its probe's T7, what a
// failed start said, the version its server reported) laid over it; and why it has no after
// snapshot, when it has none.
struct ReplicaRead {
    LoadedRun loaded;
    std::string after_missing;
};

std::optional<ReplicaRead> load_replica(const fs::path& dir, const JudgeInput& in) {
    JudgeInput rin = folder_input(dir);
    auto loaded = load_run(rin.files, in.named, in.accept);
    if (!loaded) return std::nullopt;
    ReplicaRead read{std::move(*loaded), "no after snapshot in its folder"};
    checks::RunEvidence& ev = read.loaded.evidence;
    ev.named_engine = in.named;
    if (rin.live) {
        ev.live = rin.live->verdicts;
        if (rin.live->server_version && !ev.boots.empty() && !ev.boots.front().facts.vllm_version)
            ev.boots.front().facts.server_version = rin.live->server_version;
        if (rin.live->after_missing)
            read.after_missing = "its metrics could not be read after the load: " + *rin.live->after_missing;
    }
    return read;
}

// The fleet's own evidence: the window's summed snapshots and gauges, the run folder's files
// (the load's result and log), the live record (the card's T2, what the load asked for), and
// T19 from the fleet's GPU recording with every replica's server processes as the servers'.
std::optional<checks::RunEvidence> fleet_evidence(FleetRun& run, const JudgeInput& in) {
    RunFileSet own;
    own.bench = in.files.bench;
    own.load_log = in.files.load_log;
    own.gpu = in.files.gpu;
    auto loaded = load_run(own, in.named, in.accept);
    if (!loaded) return std::nullopt;
    run.notes.insert(run.notes.end(), loaded->notes.begin(), loaded->notes.end());
    checks::RunEvidence ev = std::move(loaded->evidence);
    ev.named_engine = in.named;
    std::string missing;
    ev.before = fleet_snapshot(run.window, false, missing);
    ev.after = fleet_snapshot(run.window, true, missing);
    ev.series = summarize(run.fleet_series);
    if (ev.bench && ev.before && ev.after && own.load_log) ev.untimed_requests = untimed_requests_in(*own.load_log);
    const LiveRecord& live = *in.live;
    ev.live = live.verdicts;
    if (live.unique_prompts) ev.unique_prompts = live.unique_prompts;
    if (in.unique_prompts) ev.unique_prompts = in.unique_prompts;
    ev.requested = in.requested;
    if (!ev.requested && live.requested) ev.requested = checks::Requested::of(*live.requested);
    if (!ev.requested && ev.bench && ev.bench->max_concurrency)
        ev.requested = checks::Requested::of(*ev.bench->max_concurrency);
    if (in.max_failed_share) {
        ev.max_failed_share = *in.max_failed_share;
    } else if (live.max_failed_share) {
        ev.max_failed_share = *live.max_failed_share;
    }
    if (ev.gpu) {
        std::vector<long long> pids;
        for (const auto& r : run.replicas)
            for (const auto& b : r.evidence.boots)
                for (long long p : checks::server_pids_of(b.facts.processes)) pids.push_back(p);
        ev.live.push_back(checks::check_gpu_shared(*ev.gpu, pids));
        ev.gpu.reset();  // judged here, over every replica's processes
    }
    return ev;
}

}  // namespace

std::optional<FleetRun> load_fleet_run(const fs::path& folder, const JudgeInput& in) {
    if (!in.live || !in.live->fleet)
        throw InputError(fmt::format("{}: no fleet in its live record", (folder / kLiveFile).string()));
    const FleetRecord& rec = *in.live->fleet;
    FleetRun run;
    FleetWindow& w = run.window;
    w.url = "xray";
    w.selector = "{}";
    w.window = {rec.start_s, rec.end_s};
    w.step_s = rec.step_s;
    w.step_from = "--interval";
    w.engine = in.named;
    w.replica_key = "instance";
    for (const auto& r : rec.replicas) {
        auto read = load_replica(folder / r.folder, in);
        if (!read) return std::nullopt;
        LoadedRun& loaded = read->loaded;
        ReplicaWindow rw;
        rw.label = "instance";
        rw.name = r.name;
        rw.before = loaded.evidence.before;
        rw.after = loaded.evidence.after;
        if (!rw.after) rw.after_missing = read->after_missing;
        if (loaded.series) rw.series = std::move(*loaded.series);
        rw.gaps = series_gaps(rw.series, w.window, w.step_s);
        if (!w.engine) w.engine = &loaded.evidence.engine();
        run.notes.insert(run.notes.end(), loaded.notes.begin(), loaded.notes.end());
        run.replicas.push_back({r.name, std::move(loaded.evidence)});
        w.replicas.push_back(std::move(rw));
    }
    run.fleet_series = fleet_sum(w);
    auto fleet = fleet_evidence(run, in);
    if (!fleet) return std::nullopt;
    run.fleet = std::move(*fleet);
    return run;
}

}  // namespace inferlint::run
