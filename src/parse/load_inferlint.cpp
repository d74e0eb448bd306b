// inferlint.load/1: the format a home-made harness writes so that T15, T18 and `compare`
// read it (docs/load-tools.md, docs/schema/inferlint.load-1.schema.json). Required:
// schema, completed, output_tokens and how they were counted; everything else optional.
#include "load_readers.hpp"

#include <fmt/format.h>

namespace inferlint::loadread {

namespace {

constexpr std::string_view kSchema = "inferlint.load/1";

LatencyStats latency_block(const Json& doc, const char* name, const Fields& f) {
    const Json* b = Fields::at(doc, fmt::format("latency_ms.{}", name));
    if (!b) return {};
    if (!b->is_object())
        f.fail(fmt::format("\"latency_ms.{}\" is {}, expected an object", name, loadjson::json_type(*b)));
    return f.stats(*b, {"mean", "p50", "p90", "p95", "p99", "max"}, 1.0);
}

RequestRecord request(const Json& q, const Fields& f, std::size_t i) {
    if (!q.is_object()) f.fail(fmt::format("requests[{}] is not an object", i));
    return loadjson::request_by_keys(
        q, f, i, {"start_s", "first_token_s", "end_s", "input_tokens", "output_tokens", "stream_chunks", "error"});
}

}  // namespace

bool is_inferlint_load(const Json& doc) {
    if (!doc.is_object()) return false;
    auto s = doc.find("schema");
    return s != doc.end() && s->is_string() && s->get<std::string>().starts_with("inferlint.load/");
}

LoadResult read_inferlint_load(const Json& doc, const Fields& f) {
    if (auto s = f.text(doc, "schema"); s != kSchema)
        f.fail(fmt::format("schema \"{}\", a version of inferlint.load this build does not read (it reads {})",
                           s.value_or(""), kSchema));
    LoadResult r;
    r.path = f.source();
    r.tool = f.text(doc, "tool").value_or(std::string(kSchema));
    r.tool_version = f.text(doc, "tool_version");
    r.completed = f.count(doc, "completed");
    r.output_tokens = f.count(doc, "output_tokens");
    auto how = f.text(doc, "output_tokens_counted_by");
    if (!r.completed || !r.output_tokens || !how)
        f.fail("an inferlint.load/1 file needs completed, output_tokens and output_tokens_counted_by");
    auto counting = token_counting_from(*how);
    if (!counting)
        f.fail(
            fmt::format("output_tokens_counted_by \"{}\": expected server_usage, client_tokenizer, "
                        "stream_chunks or unknown",
                        *how));
    r.output_counting = *counting;
    f.take(doc, r,
           {{"failed", &LoadResult::failed},
            {"cancelled", &LoadResult::cancelled},
            {"incomplete", &LoadResult::incomplete},
            {"input_tokens", &LoadResult::input_tokens},
            {"server_output_tokens", &LoadResult::server_output_tokens},
            {"stream_chunks", &LoadResult::stream_chunks},
            {"warmup_excluded", &LoadResult::warmup_excluded},
            {"concurrency", &LoadResult::concurrency},
            {"request_rate", &LoadResult::request_rate},
            {"dataset", &LoadResult::dataset}});
    if (auto p = f.text(doc, "prompts")) {
        if (*p == "unique")
            r.prompts = PromptSharing::unique;
        else if (*p == "shared_prefix")
            r.prompts = PromptSharing::shared_prefix;
        else if (*p != "unknown")
            f.fail(fmt::format("prompts \"{}\": expected unique, shared_prefix or unknown", *p));
    }
    r.endpoint = f.text(doc, "endpoint");
    r.duration_s = f.number(doc, "duration_s");
    if (r.duration_s && !(*r.duration_s >= 0)) f.fail("duration_s is negative");
    loadjson::read_latencies(r, {.ttft = "ttft", .tpot = "tpot", .itl = "itl", .e2e = "e2e"},
                             [&](const char* key) { return latency_block(doc, key, f); });
    if (const Json* reqs = Fields::at(doc, "requests")) {
        if (!reqs->is_array()) f.fail("\"requests\" is not a list");
        for (std::size_t i = 0; i < reqs->size(); ++i) r.requests.push_back(request((*reqs)[i], f, i));
    }
    return r;
}

}  // namespace inferlint::loadread
