// Every tripwire in one table: what goes wrong, why it moves a benchmark's numbers, how
// inferlint checks it, and how each engine differs (port of catalog.py). `explain`,
// the report and docs/tripwires.md are all rendered from this table, so they cannot
// disagree.
//
// Codes (T1-T15, then this project's) are permanent, in the order the tripwires were found; each also has a
// slug (`silent-preemption`) that `explain` accepts in place of the code.
#pragma once

#include "inferlint/core/engines.hpp"
#include "inferlint/core/tripwire_id.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint {

// A command the docs show, run in the folder of recorded evidence (the reference
// fixtures), and the verdict lines it prints for this tripwire.
struct TripwireExample {
    std::vector<std::string_view> args;  // after "inferlint"
    // The lines of this tripwire's verdicts. Other tripwires' lines the command prints
    // are left out of the docs (rendered as `| grep`), never claimed absent.
    std::vector<std::string_view> lines;
    enum class Output { whole, excerpt } output = Output::whole;
};

struct Tripwire {
    std::string_view id;  // "T1": code(key)
    TripwireId key;
    std::string_view slug;     // "silent-preemption"
    std::string_view name;     // "Silent preemption"
    std::string_view trap;     // the symptom in one line, for tables
    std::string_view what;     // what goes wrong, as vLLM shows it
    std::string_view why;      // why it changes a benchmark's numbers
    std::string_view check;    // what inferlint does about it
    std::string_view command;  // the command that checks it (as the Python tool names it)
    // The commands that print its verdict (`series`, `report`, `xray`...): those that pick
    // tripwires from a run's verdicts take this list (shown_by()); empty for a pattern to
    // follow, with no verdict (T3, T13).
    std::vector<std::string_view> shown_by;
    // What a run must hold for it to be checked, as the report's "Not here" says it
    // ("need a boot log"; plural, the report makes it singular for one tripwire).
    std::string_view needs;
    std::vector<TripwireExample> examples;
    std::string_view measured;  // figures from recorded and live runs
    std::string_view verified;  // how it was verified, for the table
    // How the tripwire differs per engine, indexed by EngineId; empty: no difference
    // worth saying (vLLM's is the main text).
    std::array<std::string_view, 3> notes{};

    std::string_view note(EngineId e) const { return notes[static_cast<std::size_t>(e)]; }
};

// Every tripwire, in code order.
const std::vector<Tripwire>& tripwires();

// The tripwires whose verdicts `command` prints (Tripwire::shown_by), in code order.
std::vector<TripwireId> shown_by(std::string_view command);

// The entry for an id; nullptr only for an id the catalog does not hold yet.
const Tripwire* find_tripwire(TripwireId id);

// By code in any case ("T1", "t1") or by slug ("silent-preemption"); nullptr if unknown.
// Surrounding whitespace is ignored.
const Tripwire* lookup_tripwire(std::string_view key);

// "T1-T15, or a name: silent-preemption, orphaned-engine, ...": what an unknown name is told.
std::string known_tripwires_text();

// Greedy word wrap of one paragraph to `width` columns, every line starting with
// `indent`; a word longer than a line is split, so no line exceeds the width.
std::vector<std::string> wrap_paragraph(std::string_view text, std::size_t width, std::string_view indent);

// What `explain` prints for one tripwire: a heading line, the paragraphs wrapped to
// `width`, the per-engine notes (only `only`'s when given), the check command, and a
// blank line.
std::string explain_text(const Tripwire& t, const Engine* only, std::size_t width);

// docs/tripwires.md, generated from this table.
std::string render_tripwires_markdown();

}  // namespace inferlint
