// Why a server died, named from its log (port of failures.py): an ordered list of rules,
// specific root causes first, generic exception types after, "engine dead" last (it
// follows every root cause and explains none). Also when: during boot (T12) or after the
// server said it was ready (T7).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace inferlint::parse {

enum class FailureKind {
    jit_toolchain,  // a kernel build failed: nvcc, ptxas, ninja, headers, the linker
    out_of_memory,
    kv_cache_too_small,
    accelerator_error,
    cuda_error,
    assertion,
    value_error,
    runtime_error,
    unclassified_exception,
    engine_dead,
};

enum class FailurePhase { boot, serving };

// "jit_toolchain", ... as --json writes them.
std::string_view kind_value(FailureKind k);
std::string_view phase_value(FailurePhase p);

struct Failure {
    FailureKind kind;
    FailurePhase phase;
    long long lineno = 0;
    std::string line;    // without prefix, at most 300 characters
    std::string detail;  // at most 200 characters; may be empty

    // "jit_toolchain during boot: <detail or line>"
    std::string summary() const;
};

// The most specific failure in a log, or nullopt when nothing failed. Lines from the first
// "[shutdown]" on are noise of an orderly stop; tracebacks the server says it ignores are
// skipped; only lines after the ready line count once the server was ready, and not when
// it went on answering requests afterwards.
std::optional<Failure> classify_failure(std::string_view text);

// Line number of the first orderly-shutdown marker, if the server was stopped.
std::optional<long long> shutdown_lineno(std::string_view text);

}  // namespace inferlint::parse
