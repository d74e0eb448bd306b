// The fifteen tripwires of the Python tool this project ports (inferlint 0.3.1), T1-T15,
// as one table: explain, the report and docs/tripwires.md are rendered from it.
#include "catalog_table.hpp"

namespace inferlint::catalog_table {

using Ex = TripwireExample;

// Fields `explain` prints (what, why, notes, command) are plain text; the fields only
// the docs show (trap, check, measured, verified) may use Markdown code spans.
// Statements about vLLM's behaviour were verified on vLLM 0.28, 0.29 and 0.30; about
// SGLang on 0.5.20; about TensorRT-LLM on 1.3.0rc29.
std::vector<Tripwire> reference_tripwires() {
    std::vector<Tripwire> t;
    t.push_back({
        .id = "T1",
        .key = TripwireId::T1,
        .slug = "silent-preemption",
        .name = "Silent preemption",
        .trap = "a preempted request leaves no log line (vLLM) or no count (TensorRT-LLM)",
        .what = "When a running request needs another KV block and the cache has none free, vLLM "
                "preempts a request: it releases that request's KV blocks and later rebuilds them by "
                "recomputing the prompt and the tokens generated so far. The only trace is the counter "
                "vllm:num_preemptions_total; at the default log level nothing is logged (verified on "
                "vLLM 0.28, 0.29 and 0.30).",
        .why = "The preempted request queues again and repeats work, so the measured latency and "
               "throughput include recomputation the client never sees. Searching the server log for "
               "it finds nothing.",
        .check = "Takes the counter's increase between two snapshots. A counter missing from a snapshot "
                 "is Can't tell, never zero. A server restart between the snapshots is caught from the "
                 "moved `*_created` stamps, even when new traffic has already pushed the counters past "
                 "their old values (a \"did the counter go down\" test misses that).",
        .command = "inferlint preemption before.json after.json",
        .shown_by = {"preemption", "report", "xray"},
        .needs = "need before and after readings",
        .examples = {Ex{{"preemption", "vllm-0.28/metrics/preempted_before.prom",
                         "vllm-0.28/metrics/preempted_after.prom"},
                        {"[ T1] TRIPWIRE-FAILED  60 preemptions during the run"}},
                     Ex{{"preemption", "vllm-0.28/metrics/restart_before.prom", "vllm-0.28/metrics/restart_after.prom"},
                        {"[ T1] TRIPWIRE-FAILED  server restarted between snapshots (41 *_created stamps "
                         "moved, e.g. vllm:e2e_request_latency_seconds_created: 1788682378.731 -> "
                         "1788685130.504)"}}},
        .measured = "The same 32-request run was preempted 22 times on vLLM 0.28, 21 times on 0.29 and 22 "
                    "times on 0.30, and 21 times in a second 0.28 run under `xray`; the server log "
                    "mentioned none of them. SGLang retracted 1 request with "
                    "`--schedule-conservativeness 0.3` and 3 when its own benchmark client sent the load, "
                    "none under `vllm bench serve` with default settings. TensorRT-LLM paused 13 requests "
                    "with `capacity_scheduler_policy: MAX_UTILIZATION` and a 20,960-token pool: its "
                    "paused-requests gauge showed none of them in 171 readings, and inferlint counted all "
                    "13 from its log. With the default policy it paused none.",
        .verified = "live 0.28 / 0.29 / 0.30; SGLang, TensorRT-LLM",
        .notes = {"",
                  "a preemption is called a retraction. It is counted in "
                  "sglang:num_retracted_requests_total, a counter that appears only after the first "
                  "retraction, and each one is logged as a warning.",
                  "the request is paused for recompute and no counter records it. Each pause is logged at "
                  "INFO, and inferlint counts those lines in the server log. The default scheduler policy, "
                  "GUARANTEED_NO_EVICT, never pauses a request."},
    });
    t.push_back({
        .id = "T2",
        .key = TripwireId::T2,
        .slug = "orphaned-engine",
        .name = "Orphaned engine process",
        .trap = "`pkill -f` on the server command misses the engine's processes",
        .what = "pkill -f \"vllm serve\" matches only the API-server process. The engine process, which "
                "holds the weights and the KV cache in GPU memory, renames itself VLLM::EngineCore, so "
                "the pattern misses it, and it can outlive its parent when the parent is killed.",
        .why = "The next server starts in whatever GPU memory is left and quietly sizes a smaller KV "
               "pool. A single low memory reading does not prove the GPU is free either, so inferlint "
               "waits for two in a row.",
        .check = "Server processes are matched on their argv (`vllm serve`, `python -m "
                 "vllm.entrypoints...`, any `VLLM::*`), never counting the caller or its ancestors. "
                 "`teardown` sends SIGTERM, then SIGKILL to survivors, then waits for consecutive readings "
                 "with no server process and every GPU under a memory threshold. `gpu-inspect` is the gate "
                 "before a start: it says which GPU this is and how much memory is in use, and exits "
                 "non-zero when the card is not free.",
        .command = "inferlint teardown  |  inferlint gpu-inspect",
        .shown_by = {"gpu-inspect", "teardown", "report", "xray"},
        .needs = "run at clean-up",
        .examples = {},
        .measured = "The API server was killed with SIGKILL on each vLLM version. Twenty seconds later "
                    "`VLLM::EngineCore` was still alive, re-parented, holding 21,768 MiB (0.28), 21,522 MiB "
                    "(0.29) and 21,872 MiB (0.30). `inferlint gpu-inspect` refused to start a server; "
                    "`inferlint teardown` found the engine that `pkill -f 'vllm serve'` would have missed, "
                    "and the card read 0 MiB afterwards.",
        .verified = "live 0.28 / 0.29 / 0.30; SGLang, TensorRT-LLM",
        .notes = {"",
                  "the workers are named sglang::scheduler and sglang::detokenizer. In tests they exited "
                  "when their launcher was killed.",
                  "the model runs in python -m mpi4py.futures.server under prte, both started by "
                  "trtllm-serve. In tests they exited when trtllm-serve was killed."},
    });
    t.push_back({
        .id = "T3",
        .key = TripwireId::T3,
        .slug = "cleanup-self-kill",
        .name = "Cleanup kills its own shell",
        .trap = "`pkill -f` in a shell one-liner kills the shell",
        .what = "Inside a bash -c one-liner, pkill -f \"vllm serve\" also matches the shell running the "
                "one-liner, because the pattern is part of that shell's own command line.",
        .why = "The shell is killed before the rest of the cleanup runs, and the script ends without an "
               "error message.",
        .check = "`teardown` never matches by substring and never signals its own ancestors. A one-liner "
                 "such as `bash -lc '...; pkill -f \"vllm serve\"'` exits with status 143 and skips its "
                 "remaining commands; the naive pattern also hits bystanders such as "
                 "`tail -f \"vllm serve.log\"` while missing the engines.",
        .command = "inferlint teardown",
        .shown_by = {},
        .needs = "run at clean-up",
        .examples = {},
        .measured = "",
        .verified = "fixture",
        .notes = {},
    });
    t.push_back({
        .id = "T4",
        .key = TripwireId::T4,
        .slug = "pool-size-jump",
        .name = "KV pool size jumps between starts",
        .trap = "the KV pool is sized per start, in steps",
        .what = "At every start vLLM sizes the KV pool from the GPU memory left once the model is loaded "
                "and CUDA graphs are captured, and pool sizes come in discrete steps. Starts with "
                "identical flags can land on different steps; T11 is the cause.",
        .why = "Two runs with the same flags can differ by a whole step (9.4% in the recorded example), "
               "which reads as a performance difference and is not one.",
        .check = "Groups boot logs with identical non-default arguments and compares their pools within "
                 "each group; starts that never came up are left out. Every result should carry its own "
                 "start's pool. The pool also moves between releases: with the same flags, model and "
                 "GPU, vLLM 0.28 and 0.29 sized 26,093 tokens and 0.30 sized 29,127.",
        .command = "inferlint check-log boot1.log boot2.log",
        .shown_by = {"check-log", "report"},
        .needs = "need two or more boot logs",
        .examples = {Ex{{"check-log", "vllm-0.28/boot_pool_level_hi.log", "vllm-0.28/boot_pool_level_lo.log"},
                        {"[ T4] WARN  same flags, 2 different pools: 12,405 to 13,575 tokens (9.43% apart) "
                         "across boot_pool_level_hi.log, boot_pool_level_lo.log; compare results only within "
                         "one pool"},
                        Ex::Output::excerpt}},
        .measured = "Two starts each of SGLang and TensorRT-LLM with the same flags drew the same pool "
                    "(32,096 and 37,760 tokens). SGLang starts that differ only in the random seed SGLang "
                    "draws for itself count as the same flags.",
        .verified = "fixture 0.28 (a jump); live 0.29 / 0.30 (2 starts each, same pool); SGLang, "
                    "TensorRT-LLM (2 starts each, same pool)",
        .notes = {},
    });
    t.push_back({
        .id = "T5",
        .key = TripwireId::T5,
        .slug = "large-kv-blocks",
        .name = "Large KV block size",
        .trap = "on vLLM, hybrid models force a large attention block",
        .what = "For hybrid attention/Mamba models, vLLM raises the attention block size (the unit the KV "
                "cache is allocated in) from 16 tokens to hundreds, so that attention pages and Mamba "
                "state pages line up.",
        .why = "A request always holds whole blocks, so a short request occupies a full block and far "
               "fewer requests fit than the pool's token count suggests.",
        .check = "Reads the block size the boot log reports and compares it with the one asked for (16 "
                 "unless set): an override is a warning that names the allocation unit. With a 784-token "
                 "block, a 100-token request holds 784 tokens of cache and the pool is a few dozen "
                 "blocks, so capacity moves in large steps.",
        .command = "inferlint check-log boot.log",
        .shown_by = {"check-log", "report", "xray"},
        .needs = "need a boot log",
        .examples = {Ex{{"check-log", "vllm-0.28/live/boot.log"},
                        {"[ T5] WARN  attention block size forced to 784 tokens (requested 16); each "
                         "request's KV is allocated in 784-token units"},
                        Ex::Output::excerpt}},
        .measured = "400 to 1,568 tokens in the recorded boot logs, and 784 on every live run, where the "
                    "default is 16.",
        .verified = "live 0.28 / 0.29 / 0.30; SGLang, TensorRT-LLM",
        .notes = {"",
                  "KV is allocated one token at a time (page size 1). For hybrid attention/Mamba models a "
                  "fixed state slot per running request limits concurrency instead (T8).",
                  "KV is allocated in blocks of tokens_per_block tokens, 32 by default."},
    });
    t.push_back({
        .id = "T6",
        .key = TripwireId::T6,
        .slug = "backend-ignored",
        .name = "Requested attention backend ignored",
        .trap = "the requested attention backend is not applied everywhere",
        .what = "--attention-backend chooses the target model's attention backend. With speculative "
                "decoding, the draft model picks its own backend from a list of candidates and does not "
                "apply the flag.",
        .why = "In the recorded case Triton was requested and logged for the target model, but the draft "
               "model picked FlashInfer, which failed on the first request.",
        .check = "Separates the target model's backend selection from the drafter's (the backend lines "
                 "after `Loading drafter model`) and fails when either differs from the one requested. "
                 "A server started without the flag chose its own backend, so nothing was ignored.",
        .command = "inferlint check-log boot.log",
        .shown_by = {"check-log", "report", "xray"},
        .needs = "need a boot log",
        .examples = {Ex{{"check-log", "vllm-0.28/boot_spec_backend_override.log"},
                        {"[ T6] TRIPWIRE-FAILED  TRITON_ATTN was requested and the main model uses it, but "
                         "the draft model (speculative decoding) picked FLASHINFER"},
                        Ex::Output::excerpt}},
        .measured = "",
        .verified = "fixture 0.28",
        .notes = {},
    });
    t.push_back({
        .id = "T7",
        .key = TripwireId::T7,
        .slug = "crash-after-ready",
        .name = "Crash after ready",
        .trap = "a config starts, then dies on its first request",
        .what = "A server can log 'Application startup complete' and then fail on its first request, when "
                "that request reaches a code path start-up never ran (a kernel compiled on first use, for "
                "example).",
        .why = "A gate that waits only for readiness passes a server that cannot serve. inferlint probe "
               "sends real requests, and inferlint check-log reports T7 when the log shows a failure "
               "after ready.",
        .check = "`probe` sends one request, then 8 at once, then asks `/health`. `check-log` reports a "
                 "failure after readiness as T7 and one before it as T12. An error after which the "
                 "server went on working is not a failure: a request answered with 200 later in the log, "
                 "or a batch SGLang ran later (`[date time] Prefill batch, ...` or `Decode batch`). The "
                 "Python tool looks for the batch lines without SGLang's time stamp, so it never sees them "
                 "in a real SGLang log; inferlint skips the stamp first. The probe is tested against a "
                 "mock server with known ways of failing.",
        .command = "inferlint probe http://127.0.0.1:8000",
        .shown_by = {"probe", "check-log", "report", "xray"},
        .needs = "need a live server",
        .examples = {},
        .measured = "",
        .verified = "live 0.28 / 0.29 / 0.30 (healthy), fixture 0.28, mock; SGLang, TensorRT-LLM (healthy)",
        .notes = {},
    });
    t.push_back({
        .id = "T8",
        .key = TripwireId::T8,
        .slug = "concurrency-not-reached",
        .name = "Concurrency not reached",
        .trap = "requested concurrency is not achieved concurrency",
        .what = "A load tool's concurrency is how many requests it keeps open. vllm:num_requests_running "
                "is how many the scheduler actually runs; the others wait in its queue. Admission-control "
                "limits (--max-num-queued-reqs, --max-num-queued-tokens, vLLM 0.29 and later) can also "
                "turn requests away.",
        .why = "A result labelled 'concurrency 32' can describe a server that ran far fewer requests at "
               "once (never more than 10 in the recorded vLLM run).",
        .check = "Takes the peak of the running gauge from a recording made during the run and compares "
                 "it with the concurrency asked for. The boot line `Maximum concurrency for N tokens per "
                 "request` assumes every request fills the whole context, so it can neither confirm nor "
                 "refute this. When the boot log sets an admission limit and the recording reached it, T8 "
                 "says the other requests were rejected, not that the cache was full.",
        .command = "inferlint series run.series.jsonl --requested 32",
        .shown_by = {"series", "report", "xray"},
        .needs = "need a recording and the concurrency asked for",
        .examples = {Ex{{"series", "vllm-0.28/series/ladder.series.jsonl", "--snapshot",
                         "vllm-0.28/series/ladder_snapshot.prom", "--requested", "32"},
                        {"[ T8] TRIPWIRE-FAILED  requested 32 concurrent, server never ran more than 4"},
                        Ex::Output::excerpt}},
        .measured = "With `--max-num-queued-reqs 16` on vLLM 0.30 and 32 requests asked for, the benchmark "
                    "marked 16 requests failed (\"Never received a valid chunk to calculate TTFT\") without "
                    "saying why, and T8 reported: `requested 32 concurrent, server never ran more than 11; "
                    "admission control (--max-num-queued-reqs 16) kept at most 16 in flight, so the other 16 "
                    "were rejected, not queued`. With Qwen3-8B and 32 at once, SGLang ran at most 29 under "
                    "`vllm bench serve` and 32 under its own client; TensorRT-LLM ran 32 under both.",
        .verified = "live 0.28 / 0.29 / 0.30; admission control live 0.30; SGLang, TensorRT-LLM",
        .notes = {"",
                  "the server can lower its running limit below --max-running-requests so that a hybrid "
                  "model's per-request state slots fit. The log says so once, while /get_server_info keeps "
                  "reporting the value the server was started with.",
                  "gauges change only when a request completes, so a recording can miss the peak."},
    });
    t.push_back({
        .id = "T9",
        .key = TripwireId::T9,
        .slug = "falling-ceiling",
        .name = "Concurrency ceiling falls as sequences grow",
        .trap = "the concurrency ceiling is `floor(1 / share)`, and it falls",
        .what = "Once the KV cache is full, floor(1 / share) requests fit, where share is the fraction of "
                "the cache one running request holds. The share grows with sequence length, so the "
                "ceiling drops during a run, and every drop preempts requests (T1).",
        .why = "Such a run has no single maximum concurrency; any one figure for it describes none of the "
               "run.",
        .check = "Computes `share = usage / running` on every sample where the cache binds (usage at 90% "
                 "or more) and reports the range of the ceiling: a pass when it held still, a warning when "
                 "it moved. With the block count known (T14) the arithmetic is done in whole blocks, so a "
                 "reading of exactly 1/8 cannot floor to 7 through rounding.",
        .command = "inferlint series run.series.jsonl",
        .shown_by = {"series", "report", "xray"},
        .needs = "need a recording",
        .examples = {Ex{
            {"series", "vllm-0.28/series/blocks.series.jsonl", "--snapshot", "vllm-0.28/series/blocks_snapshot.prom"},
            {"[ T9] WARN  ceiling moved between 7 and 8 as requests grew (one request held 11.4% "
             "to 14.0% of the cache); concurrency was not a constant of this run"},
            Ex::Output::excerpt}},
        .measured = "The 32-request run (1,000 output tokens each, 784-token blocks) on vLLM 0.28 had 42 "
                    "usable blocks: a fresh request held 4 and 10 fit; requests grew to 6 blocks each on "
                    "average and the ceiling fell to 7. On 0.29 it fell from 10 to 5; on 0.30, with 47 usable "
                    "blocks, from 11 to 7; a second 0.28 run under `xray` fell from 10 to 5, so the lowest "
                    "point varies between runs. Running never exceeded the ceiling computed from the same "
                    "sample. With fixed-length requests (the ladder recording) the ceiling is 4 on every "
                    "saturated sample, exactly the peak T8 measured.",
        .verified = "live 0.28 / 0.29 / 0.30; SGLang, TensorRT-LLM",
        .notes = {"",
                  "the usage gauge, sglang:token_usage, reports the fullest memory pool, which for a hybrid "
                  "model can be the state slots rather than the KV cache. It is rounded to two decimals.",
                  "gauges change only when a request completes, so the ceiling can rest on few readings."},
    });
    t.push_back({
        .id = "T10",
        .key = TripwireId::T10,
        .slug = "integer-second-timer",
        .name = "Integer-second timing",
        .trap = "integer-second timers are off by up to a second at each end",
        .what = "A run timed in whole seconds, for example with $(date +%s), is off by up to one second "
                "at each end.",
        .why = "On a 30-second run that is about 3%, enough to reverse a close comparison. inferlint uses "
               "the sub-second clocks recorded with each snapshot.",
        .check = "Divides the tokens counted between two snapshots by the time between those same "
                 "snapshots on a monotonic clock, keeps the scrape latency as the timing uncertainty, and "
                 "shows what an integer-second timer would have said beside it.",
        .command = "inferlint rate before.json after.json",
        .shown_by = {"rate", "report", "xray"},
        .needs = "need before and after readings",
        .examples = {Ex{{"rate", "vllm-0.28/live/before.snapshot.json", "vllm-0.28/live/after.snapshot.json"},
                        {"[T10] PASS  341.44 tokens/s over 93.720s; an integer-second timer would say "
                         "344.09 (+0.77%)"}}},
        .measured = "On the vLLM 0.28 run the generation counter rose by exactly 32,000 tokens (32 requests "
                    "of 1,000) over 93.720 s of monotonic time, with 0.007 s of scrape uncertainty: 341.44 "
                    "tokens/s. An integer-second timer gave 344.09 (+0.77%); the error grows as runs get "
                    "shorter, and it falls independently on each arm of a comparison.",
        .verified = "live 0.28 / 0.29 / 0.30; SGLang, TensorRT-LLM",
        .notes = {},
    });
    t.push_back({
        .id = "T11",
        .key = TripwireId::T11,
        .slug = "kv-memory-drift",
        .name = "KV memory budget drifts between starts",
        .trap = "KV memory differs between starts with the same flags",
        .what = "The 'Available KV cache memory' vLLM reports at start-up can differ between starts with "
                "identical flags, mostly because the memory CUDA-graph capture takes varies.",
        .why = "A small drift can move the KV pool onto another step (T4). Record the figure of each "
               "start with every result.",
        .check = "Reports `Available KV cache memory` and the CUDA-graph memory of each start, grouped by "
                 "identical flags, and warns when they differ within a group, saying which part of vLLM's "
                 "memory split moved and how many starts compiled the model from scratch.",
        .command = "inferlint check-log boot1.log boot2.log",
        .shown_by = {"check-log", "report"},
        .needs = "need two or more boot logs",
        .examples = {Ex{{"check-log", "vllm-0.28/boot_pool_level_hi.log", "vllm-0.28/boot_pool_level_lo.log"},
                        {"[T11] WARN  same flags, KV cache memory varied: 1.44 to 1.59 GiB (weights and "
                         "non-torch memory 18.85 to 18.99 GiB; 1 of 2 starts compiled the model from "
                         "scratch)"},
                        Ex::Output::excerpt}},
        .measured = "Two starts each of SGLang and TensorRT-LLM with the same flags left the same memory for "
                    "the KV cache (4.4 and 5.19 GiB).",
        .verified = "fixture 0.28 (drift); live 0.29 / 0.30 (2 starts each, same memory); SGLang, "
                    "TensorRT-LLM (2 starts each, same memory)",
        .notes = {},
    });
    t.push_back({
        .id = "T12",
        .key = TripwireId::T12,
        .slug = "unexplained-failure",
        .name = "Start-up failure without a cause",
        .trap = "start-up failures recorded without a cause",
        .what = "When a server fails to start, searching its log for 'Error' usually finds a wrapper line "
                "rather than the root cause, and the failure is recorded without a reason.",
        .why = "A failure without its cause cannot be fixed, reproduced or compared.",
        .check = "An ordered classifier: specific root causes first (a kernel build's own error, out of "
                 "memory, a KV cache too small, accelerator and CUDA errors), generic exception types "
                 "after them, and \"engine dead\" last, because it follows every root cause and explains "
                 "none. Tracebacks after an orderly shutdown (vLLM's `[shutdown]` lines, as when a "
                 "teardown stops the server) are not failures.",
        .command = "inferlint check-log boot.log",
        .shown_by = {"check-log", "report", "xray"},
        .needs = "need a boot log",
        .examples = {Ex{{"check-log", "vllm-0.29/boot_fail_uva_wsl.log"},
                        {"[T12] TRIPWIRE-FAILED  runtime_error during boot: UVA is not available"},
                        Ex::Output::excerpt}},
        .measured = "Setting up the vLLM 0.29 and 0.30 runs on WSL with pip-installed CUDA gave four real "
                    "start-up failures, each named in one line: CUDA compiler and toolkit headers "
                    "incompatible, `Unsupported .version 9.4`, `cannot find -lcudart` (the first three from "
                    "FlashInfer 0.6.18 building its sampling kernels), and `UVA is not available` (0.29's new "
                    "model runner; `VLLM_USE_V2_MODEL_RUNNER=0` selects the previous one). A fifth, the "
                    "headers message again, came from vLLM 0.28 under `xray`. The recorded SGLang and "
                    "TensorRT-LLM failures are named too: SGLang out of memory for a hybrid model's state "
                    "slots, TensorRT-LLM unable to read a weight-only compressed-tensors checkpoint, and a "
                    "bare `assert cuda_home is not None`. Tracebacks SGLang logs and survives are not "
                    "failures.",
        .verified = "live 0.28 / 0.29 / 0.30 (healthy); real failures on 0.28, 0.29, 0.30, SGLang and "
                    "TensorRT-LLM",
        .notes = {},
    });
    t.push_back({
        .id = "T13",
        .key = TripwireId::T13,
        .slug = "stale-waiter",
        .name = "Stale waiter adopts the next server",
        .trap = "a killed campaign's waiter adopts the next server",
        .what = "A test script stopped while it waits for its server to become ready can leave its wait "
                "loop running. That loop then sees the next script's server come up, takes it for its "
                "own, and later shuts it down.",
        .why = "The next test dies partway through with no visible cause.",
        .check = "No command checks it: it lives in the scripts that drive the servers. A shell `trap` "
                 "does not run while the shell is blocked in a child; `docs/orchestration.md` gives the "
                 "patterns that avoid it (a unique port or run id per test, waiting on the server's own "
                 "pid, `gpu-inspect` before every start, `teardown` after every stop).",
        .command = "see docs/orchestration.md",
        .shown_by = {},
        .needs = "a rule for test scripts",
        .examples = {},
        .measured = "",
        .verified = "documented",
        .notes = {},
    });
    t.push_back({
        .id = "T14",
        .key = TripwireId::T14,
        .slug = "null-block",
        .name = "Reserved null block",
        .trap = "vLLM's usage gauge counts out of `num_gpu_blocks - 1`",
        .what = "vLLM exports num_gpu_blocks = N but keeps one block back (the null block), and "
                "vllm:kv_cache_usage_perc counts out of N - 1 (verified on vLLM 0.28, 0.29 and 0.30).",
        .why = "A capacity computed from the exported block count is one block too high.",
        .check = "Infers the denominator from the usage readings alone (their least common denominator, "
                 "trusted only with at least five distinct values) and compares it with the exported "
                 "count. A change on either side, or a recording and a snapshot from different starts, "
                 "turns it red.",
        .command = "inferlint series run.series.jsonl --snapshot after.json",
        .shown_by = {"series", "report", "xray"},
        .needs = "need a recording and an after reading",
        .examples = {Ex{
            {"series", "vllm-0.28/series/blocks.series.jsonl", "--snapshot", "vllm-0.28/series/blocks_snapshot.prom"},
            {"[T14] PASS  gauge denominator is 44 = num_gpu_blocks (45) - 1 null block"},
            Ex::Output::excerpt}},
        .measured = "42 of 43 blocks on vLLM 0.28 and 0.29, 47 of 48 on 0.30. On a pool of 45 large blocks "
                    "the null block is 2.2% of the advertised capacity.",
        .verified = "live 0.28 / 0.29 / 0.30 (vLLM only)",
        .notes = {"", "does not apply; the reserved null block is vLLM's.",
                  "does not apply; the reserved null block is vLLM's."},
    });
    t.push_back({
        .id = "T15",
        .key = TripwireId::T15,
        .slug = "client-server-mismatch",
        .name = "Client and server counts disagree",
        .trap = "the load tool's counts differ from the server's",
        .what = "The load tool's own counts for the run (requests completed, output tokens) are compared "
                "with the server's counters between the snapshots taken before and after it.",
        .why = "If the server did more work than the load tool sent, other traffic shared the server and "
               "the result is contaminated. If it did less, the load tool counted work the server never "
               "did.",
        .check = "Reads the load tool's result file (`vllm bench serve --save-result`; SGLang's benchmark "
                 "client, which appends one JSON line per run; TensorRT-LLM's, which writes vLLM's format) "
                 "and compares its completed requests and output tokens with the increase of the server's "
                 "finished-request and generated-token counters. Requests the client sends but leaves out "
                 "of its result (a test request, warm-ups), which its output in `load.log` reports, are "
                 "allowed for. Requests vLLM finished as aborted or errored, which the client counts as "
                 "failed (T20), are set aside, and the message and evidence (`server_set_aside`) say so.",
        .command = "inferlint xray -o results/ -- vllm bench serve ...",
        .shown_by = {"client-counts", "report", "xray"},
        .needs = "need the load tool's result file",
        .examples = {Ex{{"report", "sglang-0.5/qwen3-8b-own-client", "-o", "/tmp/inferlint-t15.html"},
                        {"[T15] PASS  client and server agree: 32 requests, 32,000 output tokens, plus 1 "
                         "untimed request (test or warm-up)"},
                        Ex::Output::excerpt}},
        .measured = "On vLLM 0.28, 0.29 and 0.30 the server's counts matched the benchmark's exactly: 32 "
                    "requests and 32,000 output tokens. With `--max-num-queued-reqs 16` on 0.30 the server "
                    "rejected 16 of the 32 requests, which `vllm bench serve` counted as failed; T15 matched "
                    "the 16 requests and 16,000 output tokens the server did finish. SGLang and TensorRT-LLM "
                    "matched too, under `vllm bench serve` and under their own clients: 32 requests and "
                    "32,000 output tokens, plus the one warm-up or test request their clients leave out.",
        .verified = "live 0.28 / 0.29 / 0.30, mock; SGLang, TensorRT-LLM, also with their own benchmark "
                    "clients",
        .notes = {},
    });
    return t;
}

}  // namespace inferlint::catalog_table
