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

namespace {

// The text of `key=` in a Namespace(...) line: a quoted string without its quotes, or
// the bare value up to the next ", " or ")". nullopt when the key is not there.
std::optional<std::string> namespace_value(std::string_view line, std::string_view key) {
    const std::string needle = std::string(key) + "=";
    for (std::size_t at = line.find(needle); at != std::string_view::npos; at = line.find(needle, at + 1)) {
        // A whole key: after "(" or ", ", not the tail of another (e.g. "sharegpt_output_len").
        if (at > 0 && line[at - 1] != '(' && line[at - 1] != ' ') continue;
        std::size_t v = at + needle.size();
        if (v < line.size() && (line[v] == '\'' || line[v] == '"')) {
            std::size_t close = line.find(line[v], v + 1);
            if (close == std::string_view::npos) return std::nullopt;
            return std::string(line.substr(v + 1, close - v - 1));
        }
        std::size_t end = v;
        while (end < line.size() && line[end] != ',' && line[end] != ')') ++end;
        return std::string(line.substr(v, end - v));
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> unique_prompts_from_namespace(std::string_view out) {
    for (std::size_t pos = 0; pos < out.size();) {
        std::size_t end = out.find('\n', pos);
        if (end == std::string_view::npos) end = out.size();
        std::string_view line = out.substr(pos, end - pos);
        pos = end + 1;
        if (!line.starts_with("Namespace(")) continue;
        auto dataset = namespace_value(line, "dataset_name");
        if (!dataset || !dataset->starts_with("random")) return std::nullopt;
        if (auto prefix = namespace_value(line, "random_prefix_len"); prefix && *prefix != "0" && *prefix != "None")
            return std::nullopt;
        return "dataset_name='" + *dataset + "' in load.log";
    }
    return std::nullopt;
}

std::optional<std::string> unique_prompts_in(const std::filesystem::path& load_log) {
    try {
        return unique_prompts_from_namespace(util::read_file(load_log, util::AllowEmpty::yes));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace inferlint
