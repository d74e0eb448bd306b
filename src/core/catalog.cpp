#include "inferlint/core/catalog.hpp"

#include "catalog_table.hpp"

#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace inferlint {

namespace {

// Every tripwire, in code order: the reference's fifteen, then the ones this project adds.
std::vector<Tripwire> make_table() {
    std::vector<Tripwire> t = catalog_table::reference_tripwires();
    t.push_back(catalog_table::prefix_cache_hits());
    t.push_back(catalog_table::realized_config());
    t.push_back(catalog_table::chunks_not_tokens());
    t.push_back(catalog_table::gpu_shared());
    t.push_back(catalog_table::failed_requests());
    t.push_back(catalog_table::streams_vs_running());
    t.push_back(catalog_table::known_engine_bug());
    return t;
}

}  // namespace

const std::vector<Tripwire>& tripwires() {
    static const std::vector<Tripwire> table = make_table();
    return table;
}

std::vector<TripwireId> shown_by(std::string_view command) {
    std::vector<TripwireId> out;
    for (const auto& t : tripwires())
        if (std::find(t.shown_by.begin(), t.shown_by.end(), command) != t.shown_by.end()) out.push_back(t.key);
    return out;
}

const Tripwire* find_tripwire(TripwireId id) {
    for (const auto& t : tripwires())
        if (t.key == id) return &t;
    return nullptr;
}

const Tripwire* lookup_tripwire(std::string_view key) {
    std::string k = util::text::lower(util::text::trim(key));
    for (const auto& t : tripwires())
        if (util::text::lower(t.id) == k || t.slug == k) return &t;
    return nullptr;
}

}  // namespace inferlint
