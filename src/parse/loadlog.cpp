#include "inferlint/parse/loadlog.hpp"

#include "inferlint/util/files.hpp"

#include <cctype>
#include <charconv>
#include <optional>
#include <string>

namespace inferlint {

namespace {

// The number N in the first "<before>N<after>" of the text, as a regex search for
// "before(\d+)after" finds it; nullopt if there is none.
std::optional<long long> first_count(std::string_view text, std::string_view before, std::string_view after) {
    for (std::size_t at = text.find(before); at != std::string_view::npos; at = text.find(before, at + 1)) {
        std::size_t digits = at + before.size();
        std::size_t end = digits;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        if (end == digits || text.substr(end, after.size()) != after) continue;
        long long n = 0;
        auto [ptr, ec] = std::from_chars(text.data() + digits, text.data() + end, n);
        // An absurd number is no count (and must not overflow the sum).
        if (ec == std::errc() && n <= 1'000'000'000) return n;
    }
    return std::nullopt;
}

}  // namespace

long long untimed_requests(std::string_view out) {
    long long n = out.find("Initial test run completed.") != std::string_view::npos ? 1 : 0;
    n += first_count(out, "Warming up with ", " requests").value_or(0);
    n += first_count(out, "Warmup completed with ", " sequences").value_or(0);
    return n;
}

long long untimed_requests_in(const std::filesystem::path& load_log) {
    return untimed_requests(util::read_file(load_log, util::AllowEmpty::yes));
}

}  // namespace inferlint
