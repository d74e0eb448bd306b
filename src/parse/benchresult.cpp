#include "inferlint/parse/benchresult.hpp"

#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "load_readers.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <variant>

namespace inferlint {

namespace {

using loadjson::accept_nonfinite;
using loadjson::infinity_marker;
using loadjson::json_type;
using loadjson::parse_problem;

std::optional<double> number(const Json& doc, const char* key, const std::string& path) {
    auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) return std::nullopt;
    if (auto inf = infinity_marker(*it)) return inf;
    if (!it->is_number())
        throw InputError(fmt::format("{}: \"{}\" is {}, expected a number", path, key, json_type(*it)));
    return it->get<double>();
}

std::optional<long long> count(const Json& doc, const char* key, const std::string& path) {
    auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) return std::nullopt;
    if (it->is_number_integer() && !it->is_number_unsigned()) return it->get<long long>();
    if (it->is_number_unsigned()) {
        auto u = it->get<unsigned long long>();
        if (u <= static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
            return static_cast<long long>(u);
    } else if (it->is_number_float()) {
        double d = it->get<double>();
        // Python's int() truncates toward zero; it refuses what is not finite.
        if (std::isfinite(d) && std::fabs(d) < 9.2e18) return static_cast<long long>(d);
    } else if (infinity_marker(*it)) {
        throw InputError(fmt::format("{}: \"{}\" is infinite, not a count", path, key));
    } else {
        throw InputError(fmt::format("{}: \"{}\" is {}, expected a count", path, key, json_type(*it)));
    }
    throw InputError(fmt::format("{}: \"{}\" is {}, not a count", path, key, it->dump()));
}

// Snapshots and recordings carry a schema; a load tool's result has none.
void refuse_inferlint_file(const Json& doc, const std::string& source) {
    auto it = doc.find("schema");
    if (it != doc.end() && it->is_string() && it->get<std::string>().starts_with("inferlint."))
        throw InputError(fmt::format("{}: an {} file, not a load tool's result", source, it->get<std::string>()));
}

// The fields every supported client writes; a document with none of them is some other file.
constexpr std::array kResultFields{"completed",           "failed",      "total_input_tokens",
                                   "total_output_tokens", "duration",    "output_throughput",
                                   "max_concurrency",     "num_prompts", "mean_ttft_ms"};

// The keys of vLLM's result format and the fields they fill: counts and numbers, read in
// this order (the first that is wrong fails).
struct BenchKey {
    const char* key;
    std::variant<std::optional<long long> BenchResult::*, std::optional<double> BenchResult::*> into;
};
constexpr BenchKey kTotals[] = {{"completed", &BenchResult::completed},
                                {"failed", &BenchResult::failed},
                                {"total_input_tokens", &BenchResult::input_tokens},
                                {"total_output_tokens", &BenchResult::output_tokens},
                                {"duration", &BenchResult::duration_s},
                                {"output_throughput", &BenchResult::output_throughput},
                                {"max_concurrency", &BenchResult::max_concurrency},
                                {"num_prompts", &BenchResult::num_prompts}};
constexpr BenchKey kLatencies[] = {{"mean_ttft_ms", &BenchResult::mean_ttft_ms},
                                   {"median_ttft_ms", &BenchResult::median_ttft_ms},
                                   {"p99_ttft_ms", &BenchResult::p99_ttft_ms},
                                   {"mean_tpot_ms", &BenchResult::mean_tpot_ms},
                                   {"median_tpot_ms", &BenchResult::median_tpot_ms},
                                   {"p99_tpot_ms", &BenchResult::p99_tpot_ms},
                                   {"request_throughput", &BenchResult::request_throughput}};

template <std::size_t N>
void read_keys(const Json& doc, const std::string& path, BenchResult& r, const BenchKey (&keys)[N]) {
    for (const BenchKey& k : keys) {
        if (auto c = std::get_if<0>(&k.into))
            r.*(*c) = count(doc, k.key, path);
        else
            r.*std::get<1>(k.into) = number(doc, k.key, path);
    }
}

// SGLang's client writes its server's arguments and the dataset it drew; TensorRT-LLM's
// writes user_throughput; vLLM's writes endpoint_type. Checked in that order.
std::optional<std::string> bench_client(const Json& doc) {
    if (doc.contains("server_info") || doc.contains("sharegpt_output_len")) return "sglang bench_serving";
    if (doc.contains("user_throughput")) return "tensorrt_llm benchmark_serving";
    if (doc.contains("endpoint_type")) return "vllm bench serve";
    return std::nullopt;
}

}  // namespace

BenchResult bench_result_from_json(const Json& doc, const std::string& path) {
    BenchResult r;
    r.path = path;
    read_keys(doc, path, r, kTotals);
    if (auto it = doc.find("backend"); it != doc.end() && !it->is_null()) {
        if (!it->is_string())
            throw InputError(fmt::format("{}: \"backend\" is {}, expected a string", path, json_type(*it)));
        r.backend = it->get<std::string>();
    }
    read_keys(doc, path, r, kLatencies);
    // Read only when a string: the reference's checks never looked at it, so a file they
    // accepted is not refused for it.
    if (auto it = doc.find("endpoint_type"); it != doc.end() && it->is_string())
        r.endpoint_type = it->get<std::string>();
    r.client = bench_client(doc);
    r.load = loadread::read_vllm(doc, loadjson::Fields(path), r);
    return r;
}

BenchResult bench_from_load(const LoadResult& load) {
    BenchResult r;
    r.path = load.path;
    loadread::copy_totals(load, r);
    if (load.concurrency && std::isfinite(*load.concurrency) && *load.concurrency >= 0 && *load.concurrency < 9e18)
        r.max_concurrency = static_cast<long long>(*load.concurrency);
    r.mean_ttft_ms = load.ttft_ms.mean;
    r.median_ttft_ms = load.ttft_ms.p50;
    r.p99_ttft_ms = load.ttft_ms.p99;
    r.mean_tpot_ms = load.tpot_ms.mean;
    r.median_tpot_ms = load.tpot_ms.p50;
    r.p99_tpot_ms = load.tpot_ms.p99;
    if (load.completed && load.duration_s && *load.duration_s > 0)
        r.request_throughput = static_cast<double>(*load.completed) / *load.duration_s;
    r.endpoint_type = load.endpoint;
    r.client = load.tool;
    r.load = load;
    return r;
}

BenchResult parse_bench_result(std::string_view raw, const std::string& source) {
    if (util::looks_binary(raw)) throw InputError(fmt::format("{}: binary data, not a load tool's result", source));
    if (raw.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw InputError(fmt::format("{}: no JSON in it (only blank lines)", source));
    const std::string text = accept_nonfinite(raw);

    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::exception& whole) {
        // JSON lines, one per run (SGLang's client appends): the last one is the latest run.
        std::size_t end = text.find_last_not_of(" \t\r\n") + 1;
        std::size_t begin = text.rfind('\n', end - 1);
        begin = begin == std::string::npos ? 0 : begin + 1;
        std::size_t first_end = text.find('\n');
        if (first_end == std::string::npos || first_end >= end) {
            throw InputError(fmt::format("{}: not valid JSON: {}", source, parse_problem(whole)));
        }
        std::size_t lineno = 1;
        for (std::size_t i = 0; i < begin; ++i) lineno += text[i] == '\n';
        // A recording's header names its schema on the first line only.
        Json first = Json::parse(std::string_view(text).substr(0, first_end), nullptr, false);
        if (first.is_object()) refuse_inferlint_file(first, source);
        try {
            doc = Json::parse(std::string_view(text).substr(begin, end - begin));
        } catch (const Json::exception& last) {
            // A pretty-printed document cut short also lands here; say which it was.
            bool lines = Json::accept(std::string_view(text).substr(0, first_end));
            if (lines)
                throw InputError(fmt::format("{}: line {}: not valid JSON: {}", source, lineno, parse_problem(last)));
            throw InputError(fmt::format("{}: not valid JSON: {}", source, parse_problem(whole)));
        }
    }
    if (!doc.is_object())
        throw InputError(fmt::format("{}: not a load tool's result (expected a JSON object, found {})", source,
                                     doc.is_array() ? "a list" : json_type(doc)));
    refuse_inferlint_file(doc, source);
    bool any = false;
    for (const char* key : kResultFields) any |= doc.contains(key);
    if (!any)
        throw InputError(fmt::format(
            "{}: not a load tool's result: none of completed, total_output_tokens, duration in it", source));
    return bench_result_from_json(doc, source);
}

BenchResult load_bench_result(const std::filesystem::path& path) {
    if (std::filesystem::is_directory(path)) return bench_from_load(load_load_result(path));
    const std::string text = util::read_file(path);
    try {
        return parse_bench_result(text, path.string());
    } catch (const InputError& vllm_format) {
        // Another tool's result: read by the dispatcher. A text no reader takes keeps the
        // message it always had.
        try {
            return bench_from_load(parse_load_result(text, path.string()));
        } catch (const loadread::NotALoadResult&) {
            throw vllm_format;
        }
    }
}

}  // namespace inferlint
