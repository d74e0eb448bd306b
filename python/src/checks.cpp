// checks: one function per tripwire, under the Python tool's names and arguments, each
// returning the package's CheckResult. None raises on a finding; bad arguments raise.
#include "convert.hpp"

#include "inferlint/checks/bootlog_checks.hpp"
#include "inferlint/checks/series_checks.hpp"
#include "inferlint/checks/snapshot_checks.hpp"
#include "inferlint/checks/suite.hpp"
#include "inferlint/checks/t15_client_server.hpp"
#include "inferlint/checks/t16_prefix_cache.hpp"
#include "inferlint/checks/t17_realized_config.hpp"
#include "inferlint/checks/t18_chunks_not_tokens.hpp"
#include "inferlint/checks/t19_gpu_shared.hpp"
#include "inferlint/checks/t20_failed_requests.hpp"
#include "inferlint/checks/t21_streams_vs_running.hpp"
#include "inferlint/checks/t22_known_engine_bug.hpp"
#include "inferlint/parse/gpu_record.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

namespace inferlint::python {

namespace {

using parse::BootFacts;
using FactsList = std::vector<BootFacts>;

std::vector<std::string> labels_or_default(const FactsList& facts, std::optional<std::vector<std::string>> labels) {
    if (labels) {
        if (labels->size() != facts.size()) throw py::value_error("give one label per boot log");
        return *labels;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < facts.size(); ++i) out.push_back("boot" + std::to_string(i));
    return out;
}

// A CheckResult of the package back into the core's, for with_timer_comparison.
CheckResult core_result(py::handle r) {
    CheckResult out;
    auto code = r.attr("tripwire").cast<std::string>();
    auto id = tripwire_id(code);
    if (!id) throw py::value_error("not a tripwire code: '" + code + "'");
    out.tripwire = *id;
    auto value = py::str(r.attr("status").attr("value")).cast<std::string>();
    for (Status s : {Status::pass, Status::warn, Status::fail, Status::unknown, Status::not_applicable})
        if (status_value(s) == value) out.status = s;
    out.message = r.attr("message").cast<std::string>();
    out.evidence = from_python(r.attr("evidence"));
    return out;
}

void bind_snapshot_checks(py::module_& m) {
    m.def(
        "check_no_preemption",
        [](const Snapshot& before, const Snapshot& after, const Series* series, const BootFacts* facts) {
            std::optional<SeriesSummary> summary;
            if (series) summary = summarize(*series);
            auto pauses = checks::pause_evidence(summary ? &*summary : nullptr, facts);
            return check_result(checks::check_no_preemption(before, after, pauses));
        },
        py::arg("before"), py::arg("after"), py::arg("series") = py::none(), py::arg("facts") = py::none(),
        "T1. Requests preempted between the snapshots (SGLang: retracted). For TensorRT-LLM, which\n"
        "counts none, the pauses in its log (`facts`) or the recording's paused gauge (`series`).");
    m.def(
        "precise_rate",
        [](const Snapshot& before, const Snapshot& after, std::optional<std::string> counter) {
            return check_result(checks::precise_rate(before, after, counter.value_or("")));
        },
        py::arg("before"), py::arg("after"), py::arg("counter") = py::none(),
        "T10. Tokens between the snapshots over the time between them, from their own clocks;\n"
        "`counter` defaults to the engine's generated-token counter.");
    m.def(
        "with_timer_comparison",
        [](py::handle r) {
            // The Python tool's API takes a result, so the figures come from its evidence here, at the edge.
            CheckResult core = core_result(r);
            checks::Measured m;
            const Json& ev = core.evidence;
            if (ev.contains("integer_second_error") && ev["integer_second_error"].is_number() &&
                ev.contains("integer_second_rate_per_s") && ev["integer_second_rate_per_s"].is_number()) {
                m.integer_second_error = ev["integer_second_error"].get<double>();
                m.integer_second_rate_per_s = ev["integer_second_rate_per_s"].get<double>();
            }
            return check_result(checks::with_timer_comparison(std::move(core), m));
        },
        py::arg("result"), "T10's message with what an integer-second timer would have said.");
    m.def(
        "check_client_server_agree",
        [](const BenchResult& bench, const Snapshot& before, const Snapshot& after, long long extra) {
            return check_result(checks::check_client_server_agree(bench, before, after, extra));
        },
        py::arg("bench"), py::arg("before"), py::arg("after"), py::kw_only(), py::arg("expected_extra_requests") = 0,
        "T15. The load tool's completed requests and output tokens against the server's counters.");
    m.def(
        "check_prefix_cache",
        [](const Snapshot& before, const Snapshot& after, const BootFacts* facts, std::optional<std::string> unique) {
            return check_result(checks::check_prefix_cache(before, after, checks::PrefixCacheContext{facts, unique}));
        },
        py::arg("before"), py::arg("after"), py::arg("facts") = py::none(), py::kw_only(),
        py::arg("unique_prompts") = py::none(),
        "T16 (beyond the reference). The share of the prompt served from the prefix cache; a\n"
        "failure when `unique_prompts` says why the prompts were meant to be unique.");
    m.def(
        "check_chunks_not_tokens",
        [](const BenchResult* bench, const Snapshot& before, const Snapshot& after, long long extra) {
            return check_result(checks::check_chunks_not_tokens(bench, before, after, extra));
        },
        py::arg("bench"), py::arg("before"), py::arg("after"), py::kw_only(), py::arg("expected_extra_requests") = 0,
        "T18 (beyond the reference). Did the load tool count stream chunks as tokens?");
    m.def(
        "check_gpu_shared",
        [](py::handle path, const std::vector<long long>& server_pids, long long growth_threshold_mib) {
            const auto p = path_of(path);
            auto rec = parse::parse_gpu_recording(util::read_file(p, util::AllowEmpty::yes));
            if (!rec) throw InputError(p.string() + ": not a GPU recording (no inferlint.gpu/1 header)");
            return check_result(checks::check_gpu_shared(*rec, server_pids, growth_threshold_mib));
        },
        py::arg("recording"), py::arg("server_pids") = std::vector<long long>{}, py::kw_only(),
        py::arg("growth_threshold_mib") = checks::kGpuSharedGrowthMib,
        "T19 (beyond the reference). From xray's gpu.jsonl: did a process outside the server's\n"
        "(its pids in the recording, and `server_pids`) hold memory on its GPUs, or the memory used\n"
        "outside it grow by more than `growth_threshold_mib`? Can't tell without two readings.");
    m.def(
        "check_failed_requests",
        [](const BenchResult* bench, const Snapshot* before, const Snapshot* after, double max_failed_share) {
            if (!(max_failed_share >= 0.0 && max_failed_share <= 1.0))
                throw py::value_error("max_failed_share is a fraction from 0 to 1 (0.05 for 5%)");
            if ((before == nullptr) != (after == nullptr))
                throw py::value_error("give both snapshots, before and after, or neither");
            return check_result(checks::check_failed_requests(bench, before, after, max_failed_share));
        },
        py::arg("bench") = py::none(), py::arg("before") = py::none(), py::arg("after") = py::none(), py::kw_only(),
        py::arg("max_failed_share") = 0.0,
        "T20 (beyond the reference). Requests that failed, were cancelled or never finished, from the\n"
        "load tool's result and the server's aborted/errored counters: FAIL when any did (the run's\n"
        "figures cover only the survivors), WARN at or under `max_failed_share` (a fraction).");
    m.def(
        "check_streams_vs_running",
        [](const BenchResult& bench, const Series* series) {
            std::optional<SeriesSummary> summary;
            std::vector<checks::RunningReading> readings;
            if (series) {
                summary = summarize(*series);
                for (const auto& s : series->samples) {
                    if (!s.running) continue;
                    std::optional<double> mono;
                    if (s.t_mono_ns) mono = static_cast<double>(*s.t_mono_ns) / 1e9;
                    readings.push_back({s.t_wall, mono, *s.running});
                }
            }
            const LoadResult* load = bench.load ? &*bench.load : nullptr;
            return check_result(checks::check_streams_vs_running(load, summary ? &*summary : nullptr,
                                                                 readings.empty() ? nullptr : &readings));
        },
        py::arg("bench"), py::arg("series") = py::none(),
        "T21 (beyond the reference). Did the server's running gauge (the recording) report more\n"
        "requests running than the load tool's per-request times ever saw streaming at once?");
    m.def(
        "engine_of",
        [](const py::args& snapshots) {
            std::vector<const Snapshot*> ps;
            for (auto s : snapshots) ps.push_back(s.cast<const Snapshot*>());
            return checks::engine_of(ps).key;
        },
        "The engine that served these snapshots, from their metric names (\"vllm\" if none tells).");
}

void bind_boot_checks(py::module_& m) {
    m.def(
        "check_boot_failure",
        [](std::string_view text) { return check_result(checks::check_boot_failure(parse::classify_failure(text))); },
        py::arg("log_text"), "T7 + T12. Did the server die, when (T7: after it was ready), and why.");
    m.def(
        "check_block_size",
        [](const BootFacts& f, long long def) { return check_result(checks::check_block_size(f, def)); },
        py::arg("facts"), py::arg("default") = 16, "T5. The attention block size forced above the one requested.");
    m.def(
        "check_backend_honoured", [](const BootFacts& f) { return check_result(checks::check_backend_honoured(f)); },
        py::arg("facts"), "T6. The requested attention backend, honoured by the model and its drafter.");
    m.def(
        "check_unparsed",
        [](const BootFacts& f) -> py::object {
            auto r = checks::check_unparsed(f);
            return r ? check_result(*r) : py::none();
        },
        py::arg("facts"), "T12 unknown when recognised lines could not be read (a format change), else None.");
    m.def(
        "check_same_pool",
        [](const FactsList& facts, std::optional<std::vector<std::string>> labels) {
            return check_results(checks::check_same_pool(facts, labels_or_default(facts, std::move(labels))));
        },
        py::arg("facts"), py::arg("labels") = py::none(),
        "T4. Starts with the same flags that drew different KV pools: one result per group of such starts.");
    m.def(
        "check_kv_memory_stable",
        [](const FactsList& facts, std::optional<std::vector<std::string>> labels) {
            return check_results(checks::check_kv_memory_stable(facts, labels_or_default(facts, std::move(labels))));
        },
        py::arg("facts"), py::arg("labels") = py::none(),
        "T11. The memory left for the KV cache, across starts with the same flags.");
    m.def(
        "check_kv_dtype_as_asked",
        [](const BootFacts& f) { return check_result(checks::check_kv_dtype_as_asked(f, nullptr)); }, py::arg("facts"),
        "T17 (beyond the reference). The KV cache dtype the engine used against the one asked.");
    m.def(
        "check_known_engine_bug", [](const BootFacts& f) { return check_result(checks::check_known_engine_bug(f)); },
        py::arg("facts"),
        "T22 (beyond the reference). A known bug of this engine version with this start's settings\n"
        "(speculative method, hybrid model, model runner, prefix cache); Can't tell when the log\n"
        "lacks the version or a setting a bug needs.");
    m.def(
        "check_realized_config",
        [](const FactsList& facts, std::optional<std::vector<std::string>> labels) {
            auto names = labels_or_default(facts, std::move(labels));
            std::vector<const BootFacts*> ps;
            for (const auto& f : facts) ps.push_back(&f);
            return check_result(checks::check_realized_config(ps, names));
        },
        py::arg("facts"), py::arg("labels") = py::none(),
        "T17 (beyond the reference). Every configuration field that differs between starts.");
}

void bind_series_checks(py::module_& m) {
    m.def(
        "check_concurrency_reached",
        [](const Series& series, long long requested, const BootFacts* facts) {
            return check_result(checks::check_concurrency_reached(summarize(series), requested, facts));
        },
        py::arg("series"), py::arg("requested"), py::arg("facts") = py::none(),
        "T8. Did the requested concurrency ever run at once?");
    m.def(
        "concurrency_ceiling",
        [](const Series& series, std::optional<long long> usable_blocks, double saturated) {
            return check_result(checks::concurrency_ceiling(summarize(series), usable_blocks, saturated));
        },
        py::arg("series"), py::arg("usable_blocks") = py::none(), py::kw_only(), py::arg("saturated") = 0.9,
        "T9. How many requests fit, floor(1 / share), sample by sample; a ceiling that moved warns.");
    m.def(
        "check_null_block",
        [](const Series& series, const Snapshot& snapshot) {
            return check_result(checks::check_null_block(summarize(series), snapshot));
        },
        py::arg("series"), py::arg("snapshot"), "T14. The usage gauge counts out of num_gpu_blocks - 1.");
    m.def(
        "running_cap",
        [](const BootFacts* facts) -> py::object {
            auto cap = checks::running_cap(facts);
            return cap ? py::object(py::make_tuple(cap->first, cap->second)) : py::none();
        },
        py::arg("facts"), "(n, why): the most requests the server runs at once by its own setting, or None.");
    m.def(
        "does_not_apply",
        [](const std::string& tripwire, const std::string& engine) -> py::object {
            auto id = tripwire_id(tripwire);
            if (!id) throw py::value_error("not a tripwire code: '" + tripwire + "'");
            auto r = checks::does_not_apply(*id, *engine_named(engine));
            return r ? check_result(*r) : py::none();
        },
        py::arg("tripwire"), py::arg("engine"),
        "The result for a tripwire about a behaviour `engine` (\"sglang\") does not have, else None.");
}

}  // namespace

void bind_checks(py::module_& m) {
    bind_snapshot_checks(m);
    bind_boot_checks(m);
    bind_series_checks(m);
}

}  // namespace inferlint::python
