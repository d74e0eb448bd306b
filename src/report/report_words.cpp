// The report's reference text: a glossary of the words it uses and what each result
// means. Written for someone who runs benchmarks but does not read vLLM's source.
#include "html_parts.hpp"

#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace inferlint::report::html {

namespace {

using Term = std::pair<std::string_view, std::string_view>;

constexpr std::array kTerms{
    Term{"Token",
         "A piece of text as the model's tokenizer cuts it: often part of a word, sometimes a whole one. How much "
         "text a token holds depends on the model and the language. Speed, cache size and cost are all counted in "
         "tokens."},
    Term{"Prompt and output tokens",
         "Prompt tokens are what a request sends the model to read. Output tokens are what the model writes back."},
    Term{"Request", "One completion the load tool asks the server for, and the answer it gets."},
    Term{"Concurrency",
         "How many requests are in progress at one moment. 'Asked for' is how many the load tool keeps open. "
         "'Running' is how many the server is actually working on; any others wait in its queue."},
    Term{"Waiting (queue)",
         "Requests the server has accepted but not started yet, usually because the KV cache has no room for "
         "them."},
    Term{"KV cache",
         "GPU memory where the server keeps the attention keys and values of every token of every running "
         "request, so they need not be computed again for each new token. Each request's share grows as it gets "
         "longer."},
    Term{"KV pool",
         "The size of the KV cache in tokens. The server sets it at start-up from the GPU memory left after the "
         "model weights and CUDA graphs, so two starts of the same setup can end up with different pools (T4, "
         "T11)."},
    Term{"KV block",
         "The unit the KV cache is handed out in. A request always holds whole blocks, so even a short one takes "
         "a full block. Blocks are usually 16 tokens; models that mix attention with Mamba layers use blocks of "
         "hundreds of tokens (T5)."},
    Term{"Null block",
         "A block vLLM sets aside and never gives to any request: a pool of N blocks serves requests from N - 1 "
         "of them (T14)."},
    Term{"Fit in cache (ceiling)",
         "How many requests of their present length the cache holds when full: floor(1 / share), where share is "
         "the part of the cache one request takes. Requests grow as they write, so fewer fit as a run goes on "
         "(T9)."},
    Term{"Preemption",
         "When a running request needs another block and none is free, vLLM takes one running request off the "
         "GPU: it drops that request's KV blocks and later rebuilds them from the prompt and the output so far. "
         "vLLM counts these in vllm:num_preemptions_total but writes nothing to its log (T1)."},
    Term{"Output tokens per second",
         "Tokens written per second by all requests together, as the server's own counter says."},
    Term{"Time to first token",
         "From sending a request to receiving the first token of its answer, time spent queued included."},
    Term{"Boot log",
         "What the server prints while it starts. It records the settings it really used, which are not always "
         "the ones asked for."},
    Term{"Before and after readings",
         "Copies of the server's counters taken just before and just after the test; what changed between them "
         "is what the test did."},
    Term{"Recording", "The server's gauges read several times a second during the test. The charts are drawn from it."},
    Term{"Attention backend",
         "The GPU code that computes the model's attention. vLLM has several and chooses one itself unless told "
         "which (T6)."},
    Term{"CUDA graphs",
         "A speed-up: the server records the GPU's work for a step once at start-up and replays it afterwards, "
         "at the cost of some memory."},
};

// The same event in the words of the other engines.
std::string_view preemption_term(EngineId id) {
    switch (id) {
        case EngineId::sglang:
            return "When the KV cache cannot hold the next tokens of the running requests, SGLang retracts one: "
                   "it frees that request's KV and later rebuilds it from the prompt and the output so far. SGLang "
                   "counts these in sglang:num_retracted_requests_total and logs a warning for each (T1).";
        case EngineId::trtllm:
            return "Under the MAX_UTILIZATION scheduler policy TensorRT-LLM pauses a running request when the KV "
                   "cache is full and recomputes it later. It exports no count of these, but logs each pause at "
                   "INFO level; its default policy, GUARANTEED_NO_EVICT, never pauses (T1).";
        case EngineId::vllm:
            break;
    }
    return "";
}

struct Meaning {
    Status status;
    std::string_view means;
    std::string_view todo;
};

constexpr std::array kMeanings{
    Meaning{Status::fail,
            "The tripwire found its problem in this run. For T7 and T12 the server itself failed. For every other "
            "tripwire the server did its work, but a figure from the run (concurrency, throughput, latency) does "
            "not mean what it appears to.",
            "Read the finding. Fix the setup and run again, or publish the figure together with the finding."},
    Meaning{Status::warn, "Nothing is broken, but a setting or an effect changes how the figures should be read.",
            "Keep the warning with the results, so whoever compares them knows about it."},
    Meaning{Status::unknown,
            "The check could not decide: a counter or log line it needs was missing, for example from a release "
            "it does not know. It never counts as a pass.",
            "Add the missing file, or check which release of the engine ran."},
    Meaning{Status::pass, "The tripwire looked for its problem in this run and did not find it.",
            "Nothing. A pass speaks for this run only."},
    Meaning{Status::not_applicable,
            "The tripwire is about something this engine does not do, such as vLLM's reserved KV block (T14) on "
            "SGLang or TensorRT-LLM.",
            "Nothing."},
};

}  // namespace

std::string terms_glossary(const Engine& engine) {
    std::string dl;
    for (const auto& [term, text] : kTerms) {
        std::string_view shown = text;
        if (term == "Preemption" && !preemption_term(engine.id).empty()) shown = preemption_term(engine.id);
        dl += "<dt>" + escape_html(term) + "</dt><dd>" + escape_html(shown) + "</dd>";
    }
    return "<details class=\"gloss\" id=\"words\"><summary>Words used in this report</summary><dl class=\"terms\">" +
           dl + "</dl></details>";
}

std::string status_glossary() {
    std::string rows;
    for (const auto& m : kMeanings)
        rows += "<tr><td>" + pill(m.status) + "</td><td>" + escape_html(m.means) + "</td><td>" + escape_html(m.todo) +
                "</td></tr>";
    return "<details class=\"gloss\"><summary>What Pass, Warning, Tripwire failed, Can't tell and Does not apply "
           "mean</summary><div class=\"tablewrap\"><table class=\"meanings\"><thead><tr><th scope=\"col\">Result</th>"
           "<th scope=\"col\">What it means</th><th scope=\"col\">What to do</th></tr></thead><tbody>" +
           rows + "</tbody></table></div></details>";
}

std::string_view needs(TripwireId t) {
    const Tripwire* row = find_tripwire(t);
    return row && !row->needs.empty() ? row->needs : "need other input";
}

std::string_view finish_reason_words(std::string_view reason) {
    if (reason == "length") return "reached their token limit";
    if (reason == "stop") return "ended by the model";
    if (reason == "repetition") return "stopped for repeating";
    if (reason == "abort") return "cancelled";
    if (reason == "error") return "failed with an error";
    return "finished";
}

}  // namespace inferlint::report::html
