// The dispatcher: which tool wrote a text, told by content (load_readers.hpp), and the
// folders some tools write instead of one file.
#include "inferlint/parse/benchresult.hpp"
#include "inferlint/parse/load_result.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "load_readers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace inferlint {

namespace fs = std::filesystem;
using loadjson::Fields;

std::string_view to_string(TokenCounting c) {
    switch (c) {
        case TokenCounting::server_usage:
            return "server_usage";
        case TokenCounting::client_tokenizer:
            return "client_tokenizer";
        case TokenCounting::stream_chunks:
            return "stream_chunks";
        case TokenCounting::unknown:
            break;
    }
    return "unknown";
}

std::optional<TokenCounting> token_counting_from(std::string_view name) {
    for (auto c : {TokenCounting::unknown, TokenCounting::server_usage, TokenCounting::client_tokenizer,
                   TokenCounting::stream_chunks})
        if (to_string(c) == name) return c;
    return std::nullopt;
}

std::string_view to_string(PromptSharing p) {
    switch (p) {
        case PromptSharing::unique:
            return "unique";
        case PromptSharing::shared_prefix:
            return "shared_prefix";
        case PromptSharing::unknown:
            break;
    }
    return "unknown";
}

namespace loadread {

namespace {

template <typename T>
std::optional<T> sum_of(const std::vector<LoadResult>& parts, std::optional<T> LoadResult::*field) {
    T total{};
    for (const auto& p : parts) {
        if (!(p.*field)) return std::nullopt;
        total += *(p.*field);
    }
    return total;
}

}  // namespace

void sum_stages(LoadResult& w) {
    if (w.stages.empty()) return;
    w.completed = sum_of(w.stages, &LoadResult::completed);
    w.failed = sum_of(w.stages, &LoadResult::failed);
    w.cancelled = sum_of(w.stages, &LoadResult::cancelled);
    w.incomplete = sum_of(w.stages, &LoadResult::incomplete);
    w.input_tokens = sum_of(w.stages, &LoadResult::input_tokens);
    w.output_tokens = sum_of(w.stages, &LoadResult::output_tokens);
    w.server_output_tokens = sum_of(w.stages, &LoadResult::server_output_tokens);
    w.stream_chunks = sum_of(w.stages, &LoadResult::stream_chunks);
    w.duration_s = sum_of(w.stages, &LoadResult::duration_s);
    const TokenCounting first = w.stages.front().output_counting;
    bool same =
        std::all_of(w.stages.begin(), w.stages.end(), [&](const LoadResult& s) { return s.output_counting == first; });
    w.output_counting = same ? first : TokenCounting::unknown;
    w.metric_notes = w.stages.front().metric_notes;
}

// A file of per-request records only (AIPerf's JSONL, LLMPerf's individual responses,
// inference-perf's per-request file) states no totals; T15 and T18 need them, so they are
// counted from the records, and said so. A total some record leaves out stays nullopt.
void totals_from_records(LoadResult& r) {
    if (r.requests.empty() || r.completed || !r.stages.empty()) return;
    long long ok = 0, bad = 0;
    std::optional<long long> out = 0, in = 0, chunks = 0;
    auto add = [](std::optional<long long>& total, const std::optional<long long>& v) {
        if (total && v)
            *total += *v;
        else
            total = std::nullopt;
    };
    for (const auto& q : r.requests) {
        if (q.error) {
            ++bad;
            continue;
        }
        ++ok;
        add(out, q.output_tokens);
        add(in, q.input_tokens);
        add(chunks, q.stream_chunks);
    }
    r.completed = ok;
    r.failed = bad;
    if (!r.output_tokens) r.output_tokens = out;
    if (!r.input_tokens) r.input_tokens = in;
    if (!r.stream_chunks) r.stream_chunks = chunks;
    r.metric_notes.push_back("completed, failed and token totals counted from the file's per-request records");
}

}  // namespace loadread

namespace {

// A document's tool, or nullptr; the order matters only where a layout could be mistaken.
using Reader = LoadResult (*)(const Json&, const Fields&);
Reader reader_of(const Json& doc) {
    using namespace loadread;
    if (is_inferlint_load(doc)) return read_inferlint_load;
    if (is_guidellm(doc)) return read_guidellm;
    if (is_aiperf(doc)) return read_aiperf;
    if (is_genai_perf(doc)) return read_genai_perf;
    if (is_perf_analyzer(doc)) return read_perf_analyzer;
    if (is_inference_perf(doc)) return read_inference_perf;
    if (is_inference_perf_requests(doc)) return read_inference_perf_requests;
    if (is_llmperf_summary(doc)) return read_llmperf_summary;
    if (is_llmperf_individual(doc)) return read_llmperf_individual;
    return nullptr;
}

LoadResult from_document(const Json& doc, std::string_view text, const Fields& f) {
    if (Reader read = reader_of(doc)) return read(doc, f);
    if (doc.is_object() && loadread::is_inference_perf_prometheus(doc))
        f.fail(
            "inference-perf's *_prometheus_metrics.json (the server's side as that tool read it), not its "
            "client's result: give the *_lifecycle_metrics.json or the report folder");
    if (doc.is_object()) {
        if (auto s = doc.find("schema"); s != doc.end() && s->is_string())
            f.fail(fmt::format("an {} file, not a load tool's result", s->get<std::string>()));
        if (loadread::is_vllm_family(doc)) return *parse_bench_result(text, f.source()).load;
        std::string keys;
        int n = 0;
        for (const auto& [k, v] : doc.items()) {
            if (n++ == 4) break;
            keys += (keys.empty() ? "" : ", ") + k.substr(0, 40);
        }
        throw loadread::NotALoadResult(
            fmt::format("{}: not a result of any load tool inferlint reads (a JSON object "
                        "with {})",
                        f.source(), keys.empty() ? "no fields" : keys));
    }
    throw loadread::NotALoadResult(fmt::format("{}: not a result of any load tool inferlint reads (JSON {})",
                                               f.source(), loadjson::json_type(doc)));
}

}  // namespace

static LoadResult parse_any(std::string_view raw, const std::string& source);

LoadResult parse_load_result(std::string_view raw, const std::string& source) {
    LoadResult r = parse_any(raw, source);
    loadread::totals_from_records(r);
    return r;
}

static LoadResult parse_any(std::string_view raw, const std::string& source) {
    const Fields f(source);
    auto none = [&](const std::string& what) { throw loadread::NotALoadResult(fmt::format("{}: {}", source, what)); };
    if (util::looks_binary(raw)) none("binary data, not a load tool's result");
    if (raw.find_first_not_of(" \t\r\n") == std::string_view::npos) none("empty, not a load tool's result");
    const std::string text = loadjson::accept_nonfinite(raw);
    if (auto doc = loadjson::try_document(text)) return from_document(*doc, raw, f);
    if (auto lines = loadjson::try_lines(text)) {
        if (loadread::is_aiperf_records(*lines)) return loadread::read_aiperf_records(*lines, f);
        const Json& last = lines->back();
        if (Reader read = reader_of(last)) return read(last, f);
        if (loadread::is_vllm_family(last)) return *parse_bench_result(raw, source).load;
    }
    // GuideLLM's benchmarks.yaml, inference-perf's lifecycle report as YAML.
    if (auto doc = loadjson::try_yaml(text); doc && reader_of(*doc)) return reader_of(*doc)(*doc, f);
    none(fmt::format("not a result of any load tool inferlint reads ({})", loadjson::describe(raw)));
    return {};
}

namespace {

// inference-perf's report folder: the summary, each stage, the per-request file. The
// stages are the parts; the summary's figures the whole, where it has them.
LoadResult read_inference_perf_folder(const fs::path& dir) {
    static const std::regex stage_re(R"(stage_(\d{1,6})_lifecycle_metrics\.json)");
    std::vector<std::pair<int, fs::path>> stages;
    for (const auto& e : fs::directory_iterator(dir)) {
        std::smatch m;
        const std::string name = e.path().filename().string();
        if (std::regex_match(name, m, stage_re)) stages.emplace_back(std::stoi(m[1].str()), e.path());
    }
    std::sort(stages.begin(), stages.end());
    const fs::path summary = dir / "summary_lifecycle_metrics.json";
    LoadResult whole = fs::exists(summary) ? load_load_result(summary) : LoadResult{};
    whole.path = dir.string();
    whole.tool = "inference-perf";
    for (const auto& [n, p] : stages) whole.stages.push_back(load_load_result(p));
    if (!fs::exists(summary)) loadread::sum_stages(whole);
    const fs::path per_request = dir / "per_request_lifecycle_metrics.json";
    if (fs::exists(per_request)) whole.requests = load_load_result(per_request).requests;
    if (whole.stages.empty() && !fs::exists(summary))
        throw InputError(
            fmt::format("{}: an inference-perf folder with no *_lifecycle_metrics.json in it", dir.string()));
    return whole;
}

LoadResult read_folder(const fs::path& dir) {
    if (fs::exists(dir / "summary_lifecycle_metrics.json") || fs::exists(dir / "stage_0_lifecycle_metrics.json"))
        return read_inference_perf_folder(dir);
    if (fs::exists(dir / "profile_export_aiperf.json")) {
        LoadResult r = load_load_result(dir / "profile_export_aiperf.json");
        if (fs::exists(dir / "profile_export.jsonl"))
            r.requests = load_load_result(dir / "profile_export.jsonl").requests;
        r.path = dir.string();
        return r;
    }
    if (fs::exists(dir / "profile_export_genai_perf.json")) {
        LoadResult r = load_load_result(dir / "profile_export_genai_perf.json");
        if (fs::exists(dir / "profile_export.json"))
            r.requests = load_load_result(dir / "profile_export.json").requests;
        r.path = dir.string();
        return r;
    }
    throw InputError(
        fmt::format("{}: a folder with no load tool's result in it (looked for inference-perf's "
                    "summary_lifecycle_metrics.json, AIPerf's profile_export_aiperf.json, "
                    "genai-perf's profile_export_genai_perf.json)",
                    dir.string()));
}

}  // namespace

LoadResult load_load_result(const fs::path& path) {
    if (fs::is_directory(path)) return read_folder(path);
    return parse_load_result(util::read_file(path), path.string());
}

}  // namespace inferlint
