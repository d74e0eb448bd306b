// The load-result readers, one file each (load_<tool>.cpp), and what tells their files
// apart (internal to parse/). Each `is_*` looks at content only; each `read_*` states what
// the file states and refuses what no run could have written.
#pragma once

#include "inferlint/parse/benchresult.hpp"
#include "inferlint/util/error.hpp"
#include "load_json.hpp"

#include <vector>

namespace inferlint::loadread {

using loadjson::Fields;

// What the dispatcher throws when no reader takes the text (binary, empty, no tool's
// content): load_bench_result then keeps vLLM's reader's message.
class NotALoadResult : public InputError {
public:
    using InputError::InputError;
};

// GuideLLM benchmarks.json: v0.3's {benchmarks: [...]} and the newer
// {metadata, config, benchmarks}.
bool is_guidellm(const Json& doc);
LoadResult read_guidellm(const Json& doc, const Fields& f);

// AIPerf profile_export_aiperf.json (older records{} layout, flat 0.8 layout) and its
// per-request profile_export.jsonl.
bool is_aiperf(const Json& doc);
LoadResult read_aiperf(const Json& doc, const Fields& f);
bool is_aiperf_records(const std::vector<Json>& lines);
LoadResult read_aiperf_records(const std::vector<Json>& lines, const Fields& f);

// genai-perf profile_export_genai_perf.json, and perf_analyzer's profile_export.json.
bool is_genai_perf(const Json& doc);
LoadResult read_genai_perf(const Json& doc, const Fields& f);
bool is_perf_analyzer(const Json& doc);
LoadResult read_perf_analyzer(const Json& doc, const Fields& f);

// inference-perf: a *_lifecycle_metrics.json, per_request_lifecycle_metrics.json, and the
// *_prometheus_metrics.json (the server's side; refused alone).
bool is_inference_perf(const Json& doc);
bool is_inference_perf_prometheus(const Json& doc);
LoadResult read_inference_perf(const Json& doc, const Fields& f);
bool is_inference_perf_requests(const Json& doc);
LoadResult read_inference_perf_requests(const Json& doc, const Fields& f);

// LLMPerf *_summary.json and *_individual_responses.json.
bool is_llmperf_summary(const Json& doc);
LoadResult read_llmperf_summary(const Json& doc, const Fields& f);
bool is_llmperf_individual(const Json& doc);
LoadResult read_llmperf_individual(const Json& doc, const Fields& f);

// inferlint.load/1 (docs/schema/inferlint.load-1.schema.json).
bool is_inferlint_load(const Json& doc);
LoadResult read_inferlint_load(const Json& doc, const Fields& f);

// vLLM's field names: vllm bench serve, SGLang's bench_serving, TensorRT-LLM's
// benchmark_serving. The counts are `bench`'s (benchresult.cpp read them, and its rules
// stand); the rest (latencies, spec_decode_*, --save-detailed lists) is read here.
bool is_vllm_family(const Json& doc);
LoadResult read_vllm(const Json& doc, const Fields& f, const BenchResult& bench);

// Totals counted from the per-request records, for a file that states none.
void totals_from_records(LoadResult& r);

// Sums of the parts' counts where every part states one; nullopt otherwise.
void sum_stages(LoadResult& whole);

// The totals a BenchResult and a LoadResult both hold, copied from one to the other.
template <class From, class To>
void copy_totals(const From& from, To& to) {
    to.completed = from.completed;
    to.failed = from.failed;
    to.input_tokens = from.input_tokens;
    to.output_tokens = from.output_tokens;
    to.duration_s = from.duration_s;
    to.output_throughput = from.output_throughput;
}

}  // namespace inferlint::loadread
