// boot-facts LOG: what a boot log says about the server that started.
#include "registry.hpp"

#include "inferlint/parse/bootlog.hpp"
#include "inferlint/parse/pyliteral.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace inferlint::cli {
namespace {

struct Opts {
    std::string log;
};

// A Python tuple's repr, for the two facts the Python tool keeps as tuples.
std::string tuple_repr(const Json& items) {
    std::string out = "(";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + parse::py_repr(items[i]);
    return out + (items.size() == 1 ? ",)" : ")");
}

void print_text(const parse::BootFacts& facts) {
    Json doc = parse::to_json(facts);
    for (const auto& [key, value] : doc.items()) {
        if (key == "unparsed" || key == "conflicts" || key == "non_default_args" || key == "server_args") continue;
        if (value.is_null() || ((value.is_array() || value.is_object()) && value.empty())) continue;
        std::string shown =
            key == "candidate_backends" || key == "cudagraph_mode_downgrade" ? tuple_repr(value) : parse::py_str(value);
        fmt::print("{:28} {}\n", key, shown);
    }
    if (facts.non_default_args && !facts.non_default_args->empty()) {
        Json keys = Json::array();
        for (const auto& [k, v] : facts.non_default_args->items()) keys.push_back(k);
        std::sort(keys.begin(), keys.end());
        fmt::print("{:28} {}\n", "non_default_args", parse::py_repr(keys));
    }
    if (facts.server_args && !facts.server_args->empty())
        fmt::print("{:28} {} settings (--json lists them)\n", "server_args", facts.server_args->size());
    // Beyond the Python tool's facts (its --json keys stay as they were).
    const parse::RealizedFacts& r = facts.realized;
    if (r.kv_cache_dtype) fmt::print("{:28} {}\n", "kv_cache_dtype", *r.kv_cache_dtype);
    if (r.linear_attention_backend) fmt::print("{:28} {}\n", "linear_attention_backend", *r.linear_attention_backend);
    if (r.cudagraph_memory_gib)
        fmt::print("{:28} {}\n", "cudagraph_memory_gib", parse::py_str(Json(*r.cudagraph_memory_gib)));
    if (r.drafter_cudagraph_gib)
        fmt::print("{:28} {}\n", "drafter_cudagraph_gib", parse::py_str(Json(*r.drafter_cudagraph_gib)));
    for (const auto& [name, vals] : facts.conflicts) fmt::print("CONFLICT {}: {}\n", name, parse::py_repr(Json(vals)));
    for (const auto& u : facts.unparsed) fmt::print("UNPARSED {} (line {}): {}\n", u.field, u.lineno, u.line);
}

int run_boot_facts(const Opts& o, const Common& common) {
    auto scan = parse::scan_boot_log_file(o.log, common.engine, [&](const Engine* found) {
        if (other_engine(common, found, o.log)) return false;
        note_unknown(common, found, o.log);
        return true;
    });
    if (!scan) return 2;
    const parse::BootFacts& facts = scan->facts;
    // On stderr, so --json stays clean.
    if (auto note = parse::untested_version(facts)) std::cerr << "note: " << *note << "\n";
    if (common.json)
        std::cout << parse::to_json(facts).dump(1, ' ', false, Json::error_handler_t::replace) << "\n";
    else
        print_text(facts);
    return common.strict && !facts.unparsed.empty() ? 2 : 0;
}

const Registrar reg{Command{.name = "boot-facts",
                            .group = Group::saved,
                            .order = 3,
                            .summary = "what a boot log says: version, KV cache, memory, settings",
                            .takes_engine = TakesEngine::yes,
                            .gives_verdicts = GivesVerdicts::no,
                            .setup = [](CLI::App& app) {
                                auto o = std::make_shared<Opts>();
                                app.add_option("log", o->log, "the server's boot log")->required();
                                return [o](const Common& common) { return run_boot_facts(*o, common); };
                            }}};

}  // namespace
}  // namespace inferlint::cli
