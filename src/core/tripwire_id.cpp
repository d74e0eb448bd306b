#include "inferlint/core/tripwire_id.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <string>

namespace inferlint {

namespace {

std::optional<TripwireId> selection_id(std::string_view part) {
    std::string code = util::text::lower(util::text::trim(part));
    if (!code.empty()) code[0] = code[0] == 't' ? 'T' : code[0];
    return tripwire_id(code);
}

}  // namespace

std::optional<std::vector<TripwireId>> parse_tripwire_selection(std::string_view text) {
    std::vector<TripwireId> out;
    if (util::text::trim(text).empty()) return std::nullopt;
    const std::string word = util::text::lower(util::text::trim(text));
    if (word == "all") return std::vector<TripwireId>(kTripwireIds.begin(), kTripwireIds.end());
    if (word == "reference") return parse_tripwire_selection("T1-T15");
    for (std::size_t from = 0; from <= text.size();) {
        std::size_t comma = std::min(text.find(',', from), text.size());
        std::string_view part = text.substr(from, comma - from);
        std::size_t dash = part.find('-');
        auto lo = selection_id(part.substr(0, dash));
        auto hi = dash == std::string_view::npos ? lo : selection_id(part.substr(dash + 1));
        if (!lo || !hi || *hi < *lo) return std::nullopt;
        for (TripwireId id : kTripwireIds)
            if (id >= *lo && id <= *hi && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
        from = comma + 1;
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace inferlint
