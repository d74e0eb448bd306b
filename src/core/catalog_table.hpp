// The catalog's entries, one function per part of the table. Private to src/core/catalog*.cpp:
// everything else reads the table through core/catalog.hpp.
#pragma once

#include "inferlint/core/catalog.hpp"

#include <vector>

namespace inferlint::catalog_table {

// T1-T15, as the Python tool has them.
std::vector<Tripwire> reference_tripwires();

// T17, beyond the Python tool (catalog_t17.cpp).
Tripwire realized_config();

}  // namespace inferlint::catalog_table
