// T22, added by this project: a known engine bug for the version and settings a start ran.
#include "catalog_table.hpp"

#include "inferlint/core/known_bugs.hpp"

#include <string>

namespace inferlint::catalog_table {

Tripwire known_engine_bug() {
    using Ex = TripwireExample;
    // The rows, rendered once from the table the check reads (core/known_bugs.cpp), so
    // `explain T22` and docs/tripwires.md list exactly what is checked.
    static const std::string what =
        "Some engine releases have bugs that only show with one configuration: speculative decoding of one "
        "method on a hybrid (Mamba/linear-attention) model, or a hybrid model with the prefix cache on. The "
        "server starts and answers; nothing in the run says the answers or the limits are wrong. The known "
        "bugs, one row each: " +
        known_bugs_text();
    return {
        .id = "T22",
        .key = TripwireId::T22,
        .slug = "known-engine-bug",
        .name = "A known engine bug for this version and setting",
        .trap = "the engine's version and settings hit a bug that changes the replies or the limits",
        .what = what,
        .why =
            "A benchmark of such a start measures the bug: speculative decoding that changes up to a fifth "
            "of the replies looks like a free speed-up, and a running limit lowered to one request looks "
            "like an engine that cannot batch.",
        .check =
            "Reads each start's engine, version and settings from its boot log (speculative-decoding "
            "method, whether the model is hybrid, the prefix cache, the model runner) and matches them "
            "against the known-bug table. A match warns with the bug's effect and what to do; a start no "
            "row can match passes; a row that could match when the version or one of its settings is not "
            "in the log is Can't tell. Runs at boot, before any load is sent, in check-log, report and "
            "xray. Adding a bug is adding a row to src/core/known_bugs.cpp.",
        .command = "inferlint check-log boot.log",
        .shown_by = {"check-log", "report", "xray"},
        .needs = "need a boot log",
        .examples = {Ex{{"check-log", "sglang-0.5/qwen3-8b/boot.log"},
                        {"[T22] PASS  no known bug for SGLang in this configuration"},
                        Ex::Output::excerpt}},
        .measured =
            "Field notes: MTP on a hybrid model before vLLM 0.30 changed 29 of 385 replies (up to 11.9 "
            "accuracy points); n-gram before 0.32.0 changed 79-80 of 385 (18.2 points); SGLang 0.5.20 "
            "with a hybrid model and its prefix cache ran one request at a time.",
        .verified = "recorded vLLM 0.28-0.30 and SGLang 0.5.20 starts, and the same logs with one setting changed",
        .notes = {"",
                  "the version is not in SGLang's log; it comes from the server over HTTP (xray) or is "
                  "Can't tell where a row could match.",
                  "no known bug in the table yet."},
    };
}

}  // namespace inferlint::catalog_table
