"""The module's public surface as the Python tool's library users use it: Status and
CheckResult, raise_for_status, evidence as plain Python values, the telemetry helpers and their
exceptions, the checks beyond the reference (T16-T18), and run() and compare() on the project's
own simulator runs."""

from __future__ import annotations

import json
import math

import pytest

import inferlint
from inferlint import CheckResult, Status, TripwireFailed, benchresult, bootlog, checks, series, telemetry
from conftest import ROOT, SIM_RUN

PREEMPTED = ROOT / "tests" / "fixtures" / "vllm-sim" / "preempted"
COMPARE = ROOT / "tests" / "fixtures" / "vllm-sim" / "compare"


def _plain(value: object) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def test_status_values_are_the_python_tools():
    assert [s.value for s in Status] == ["pass", "warn", "fail", "unknown", "not_applicable"]
    assert Status("fail") is Status.FAIL and Status.FAIL == "fail"


def test_raise_for_status_stops_on_fail_and_unknown_and_on_warn_when_asked():
    warn = CheckResult("T9", Status.WARN, "ceiling moved", {"ceiling_min": 7})
    warn.raise_for_status()
    with pytest.raises(TripwireFailed) as raised:
        warn.raise_for_status(allow_warn=False)
    assert raised.value.result is warn and str(raised.value) == "[T9] WARN: ceiling moved"
    unknown = CheckResult("T1", Status.UNKNOWN, "absent")
    with pytest.raises(TripwireFailed):
        unknown.raise_for_status()
    unknown.raise_for_status(allow_unknown=True)
    assert isinstance(raised.value, AssertionError)
    assert not unknown.ok and warn.ok


def test_every_verdict_of_a_run_is_a_check_result_with_plain_evidence():
    results = inferlint.run(SIM_RUN)
    assert [r.tripwire for r in results] == [
        "T12", "T5", "T6", "T22", "T17", "T15", "T1", "T10", "T14", "T9", "T8", "T16", "T18", "T20", "T21"]
    for r in results:
        assert isinstance(r, CheckResult) and isinstance(r.status, Status)
        assert _plain(r.evidence), r
        json.dumps(r.to_json())
    failed = {r.tripwire: r.message for r in inferlint.run(PREEMPTED) if r.status is Status.FAIL}
    assert failed == {"T1": "22 preemptions during the run",
                      "T8": "requested 16 concurrent, server never ran more than 12"}


def test_run_gives_the_verdicts_the_cli_prints(cli, tmp_path):
    import subprocess

    done = subprocess.run([str(cli), "report", str(PREEMPTED), "--tripwires", "all", "--json",
                           "-o", str(tmp_path / "r.html")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # report writes its page, whatever the verdicts
    theirs = json.loads(done.stdout)
    assert [r.to_json() for r in inferlint.run(PREEMPTED)] == theirs


def test_checks_beyond_the_reference_on_the_simulator_run():
    before, after = telemetry.load(SIM_RUN / "before.snapshot.json"), telemetry.load(SIM_RUN / "after.snapshot.json")
    bench = benchresult.load(SIM_RUN / "bench.json")
    facts = bootlog.parse_file(SIM_RUN / "boot.log")
    t15 = checks.check_client_server_agree(bench, before, after, expected_extra_requests=1)
    assert (t15.tripwire, t15.status) == ("T15", Status.PASS)
    t16 = checks.check_prefix_cache(before, after, facts, unique_prompts="--dataset-name random")
    assert (t16.tripwire, t16.status) == ("T16", Status.PASS)
    t17 = checks.check_kv_dtype_as_asked(facts)
    assert (t17.tripwire, t17.status) == ("T17", Status.PASS)
    t18 = checks.check_chunks_not_tokens(bench, before, after, expected_extra_requests=1)
    assert (t18.tripwire, t18.status) == ("T18", Status.PASS)
    assert checks.check_chunks_not_tokens(None, before, after).status is Status.UNKNOWN
    assert checks.engine_of(before, after) == "vllm"
    na = checks.does_not_apply("T14", "sglang")
    assert na is not None and na.status is Status.NOT_APPLICABLE
    assert checks.does_not_apply("T14", "vllm") is None


def test_boot_facts_attributes_and_their_dict():
    facts = bootlog.parse_file(SIM_RUN / "boot.log")
    doc = facts.to_json()
    for name, value in doc.items():
        got = getattr(facts, name)
        assert (list(got) if isinstance(got, tuple) else got) == value or name == "unparsed", name
    assert facts.ready is True and facts.engine == "vllm"
    assert checks.running_cap(facts) == (32, "the server runs at most 32 at once (--max-num-seqs 32)")


def test_series_reads_whole_and_from_samples():
    rec = series.read(SIM_RUN / "run.series.jsonl")
    assert rec.engine == "vllm" and rec.header["schema"] == "inferlint.series/1"
    assert rec.peak_running() == 32.0 and len(rec.samples) == len(rec)
    assert all(0 < u <= 1 for u in rec.kv_usages())
    again = series.from_samples(rec.samples, rec.header)
    assert checks.concurrency_ceiling(again).to_json() == checks.concurrency_ceiling(rec).to_json()


def test_snapshot_round_trip_and_counter_helpers(tmp_path):
    before = telemetry.load(SIM_RUN / "before.snapshot.json")
    before.save(tmp_path / "again.json")
    again = telemetry.load(tmp_path / "again.json")
    assert again.to_json() == before.to_json() == telemetry.Snapshot.from_json(before.to_json()).to_json()
    after = telemetry.load(SIM_RUN / "after.snapshot.json")
    assert telemetry.counter_delta(before, after, "vllm:generation_tokens_total") == 33000.0
    assert telemetry.counter_delta(before, after, "vllm:no_such_counter_total") is None
    span, uncertainty = telemetry.span_s(before, after)
    assert span > 0 and uncertainty >= 0


def test_snapshot_metrics_as_the_python_tools():
    m = telemetry.load(SIM_RUN / "after.snapshot.json").metrics
    assert "vllm:num_preemptions_total" in m and m.has("vllm:kv_cache_usage_perc")
    assert m.total("vllm:generation_tokens_total") == 33000.0
    assert m.total("vllm:request_success_total", finished_reason="length") == 33.0
    assert m.total("vllm:no_such_total") is None and m.single("vllm:no_such_total") is None
    assert m.info("vllm:cache_config_info")["num_gpu_blocks"] == "4096"
    with pytest.raises(LookupError, match="matches 5 series"):
        m.single("vllm:request_success_total")


def test_a_restart_and_a_missing_clock_raise_as_the_python_tool_does():
    a = telemetry.Snapshot("a", "vllm:num_preemptions_total 5\n", 100.0, 1_000_000_000)
    b = telemetry.Snapshot("b", "vllm:num_preemptions_total 2\n", 110.0, 11_000_000_000)
    with pytest.raises(telemetry.ServerRestarted) as raised:
        telemetry.counter_delta(a, b, "vllm:num_preemptions_total")
    assert raised.value.evidence == {"counter": "vllm:num_preemptions_total", "before": 5.0, "after": 2.0}
    assert checks.check_no_preemption(a, b).status is Status.FAIL  # a restart is T1's finding
    bare = telemetry.Snapshot("x", "vllm:num_preemptions_total 5\n", math.nan)
    with pytest.raises(ValueError, match="no span"):
        telemetry.span_s(bare, bare)


def test_compare_two_arms_of_simulator_runs():
    doc = inferlint.compare([COMPARE / "base"], [COMPARE / "faster"], require_gain={"output_throughput": 5})
    assert doc["exit_status"] in (0, 1, 2)
    assert [c["check"] for c in doc["checks"]] == ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"]
    with pytest.raises(ValueError, match="unknown figure"):
        inferlint.compare([COMPARE / "base"], [COMPARE / "faster"], require_gain={"speed": 5})
    with pytest.raises(inferlint.InputError):
        inferlint.compare([SIM_RUN / "nonesuch"], [COMPARE / "faster"])


def test_compare_gives_the_clis_document(cli):
    import subprocess

    done = subprocess.run([str(cli), "compare", str(COMPARE / "base"), "--vs", str(COMPARE / "faster"),
                           "--require-gain", "output_throughput:5", "--tripwires", "all", "--json"],
                          capture_output=True, text=True, timeout=120)
    theirs = json.loads(done.stdout)
    ours = inferlint.compare([COMPARE / "base"], [COMPARE / "faster"], require_gain={"output_throughput": 5})
    assert ours == theirs and ours["exit_status"] == done.returncode


def test_t19_and_t22_through_the_module(tmp_path):
    fixtures = ROOT / "tests" / "fixtures"
    # T22: n-gram speculative decoding on a hybrid model, vLLM 0.31: the known bug's row.
    hybrid = bootlog.parse_file(fixtures / "t22" / "vllm-0.31-ngram-hybrid.log")
    t22 = checks.check_known_engine_bug(hybrid)
    assert (t22.tripwire, t22.status) == ("T22", Status.WARN)
    assert "0.32.0" in t22.message
    # The simulator's healthy start matches no row.
    assert checks.check_known_engine_bug(bootlog.parse_file(SIM_RUN / "boot.log")).status is Status.PASS
    # T19: a tenant arrives on the server's GPU; the same pid counted as the server's passes.
    recording = fixtures / "t19" / "tenant.gpu.jsonl"
    t19 = checks.check_gpu_shared(recording)
    assert (t19.tripwire, t19.status) == ("T19", Status.FAIL)
    assert "process 9001" in t19.message and t19.evidence["other_processes"][0]["pid"] == 9001
    assert checks.check_gpu_shared(str(recording), [9001]).status is Status.PASS
    # A file that is no recording is one line naming it, as the CLI says it.
    bad = tmp_path / "gpu.jsonl"
    bad.write_text('{"schema": "inferlint.snapshot/1"}\n')
    with pytest.raises(inferlint.InputError, match="gpu.jsonl: not a GPU recording"):
        checks.check_gpu_shared(bad)
    with pytest.raises(inferlint.InputError):
        checks.check_gpu_shared(tmp_path / "missing.jsonl")


def test_t20_and_t21_through_the_module(tmp_path):
    fixtures = ROOT / "tests" / "fixtures"
    # T20 on the simulator's healthy run: none of its requests failed, on either side.
    before, after = telemetry.load(SIM_RUN / "before.snapshot.json"), telemetry.load(SIM_RUN / "after.snapshot.json")
    bench = benchresult.load(SIM_RUN / "bench.json")
    t20 = checks.check_failed_requests(bench, before, after)
    assert (t20.tripwire, t20.status) == ("T20", Status.PASS)
    assert checks.check_failed_requests().status is Status.UNKNOWN  # neither side: Can't tell, never a pass
    # One failed request of the load tool's: FAIL; accepted at 5% as a share under it: WARN.
    doc = json.loads((SIM_RUN / "bench.json").read_text())
    doc["num_prompts"], doc["failed"] = doc["num_prompts"] + 1, 1
    one_failed = tmp_path / "bench.json"
    one_failed.write_text(json.dumps(doc))
    failed = benchresult.load(one_failed)
    assert checks.check_failed_requests(failed).status is Status.FAIL
    assert checks.check_failed_requests(failed, max_failed_share=0.5).status is Status.WARN
    with pytest.raises(ValueError):
        checks.check_failed_requests(failed, max_failed_share=5)
    # T21: 32 running by the gauge while at most 24 streamed (tests/fixtures/t21): a warning.
    load = benchresult.load(fixtures / "t21" / "waiting-for-memory.load.json")
    recording = series.read(fixtures / "t21" / "running-32.series.jsonl")
    t21 = checks.check_streams_vs_running(load, recording)
    assert (t21.tripwire, t21.status) == ("T21", Status.WARN)
    assert "32" in t21.message and "24" in t21.message
    assert checks.check_streams_vs_running(load).status is Status.UNKNOWN  # no recording
