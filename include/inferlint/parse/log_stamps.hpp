// The "MM-DD hh:mm:ss" stamps vLLM and its peers put on each log line (no year), and how
// long a server took to boot by them.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace inferlint::parse {

// Seconds since 2000-01-01 of the first "MM-DD hh:mm:ss" stamp in the line; nullopt
// when it has none, or an impossible date.
std::optional<long long> stamp_seconds(std::string_view line);

// The stamps of a log's lines as they go by. It keeps the stamp of each line where the
// stamp changes, with the line's number: memory grows with how long the log ran, not
// with how long it is.
class StampTrail {
public:
    void line(std::string_view line, long long lineno);
    // Seconds from the first stamped line to the last one up to the ready line; nullopt
    // when it never got ready, has no stamps, or crossed New Year (no year in the stamps,
    // so not guessed).
    std::optional<double> boot_seconds(std::optional<long long> ready_lineno) const;
    // How many changes of stamp it keeps.
    std::size_t kept() const { return changes_.size(); }

private:
    std::vector<std::pair<long long, long long>> changes_;  // (line number, stamp), in line order
};

}  // namespace inferlint::parse
