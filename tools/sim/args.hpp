// Command lines in the style of vLLM's argparse: "--max-num-seqs 32", "--max_num_seqs=32",
// flags without a value, and positionals. Unknown options are kept, as real servers take
// many options the simulator only has to accept.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sim {

struct Option {
    std::string key;                   // "max_num_seqs": dashes folded to underscores, without the "--"
    std::optional<std::string> value;  // nullopt: a flag
};

struct Args {
    std::vector<std::string> positional;
    std::vector<Option> options;  // in command-line order; a repeated key keeps every use

    const Option* find(const std::string& key) const;  // the last use
    bool flag(const std::string& key) const;
    std::string str(const std::string& key, const std::string& fallback) const;
    int integer(const std::string& key, int fallback) const;  // exits 2 on a bad number
    double number(const std::string& key, double fallback) const;
};

// `flags`: options that never take a value (others take the next word unless it starts
// with "--").
Args parse_args(const std::vector<std::string>& words, const std::set<std::string>& flags);

// Prints "vllm: error: ..." on stderr and exits 2, as argparse does.
[[noreturn]] void usage_error(const std::string& what);

}  // namespace sim
