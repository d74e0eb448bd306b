// The catalog's entries, one function per part of the table. Private to src/core/catalog*.cpp:
// everything else reads the table through core/catalog.hpp.
#pragma once

#include "inferlint/core/catalog.hpp"

#include <vector>

namespace inferlint::catalog_table {

// T1-T15, as the Python tool has them.
std::vector<Tripwire> reference_tripwires();

// The ones this project adds, one file each (catalog_tNN.cpp).
Tripwire prefix_cache_hits();  // T16

// T18: the load tool counted stream chunks, not tokens (catalog_t18.cpp).
Tripwire chunks_not_tokens();

}  // namespace inferlint::catalog_table
