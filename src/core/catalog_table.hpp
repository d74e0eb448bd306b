// The catalog's entries, one function per part of the table. Private to src/core/catalog*.cpp:
// everything else reads the table through core/catalog.hpp.
#pragma once

#include "inferlint/core/catalog.hpp"

#include <vector>

namespace inferlint::catalog_table {

// T1-T15, as the Python tool has them.
std::vector<Tripwire> reference_tripwires();

// The ones this project adds, one file each (catalog_tNN.cpp).
Tripwire prefix_cache_hits();   // T16
Tripwire realized_config();     // T17
Tripwire chunks_not_tokens();   // T18
Tripwire gpu_shared();          // T19
Tripwire failed_requests();     // T20
Tripwire streams_vs_running();  // T21
Tripwire known_engine_bug();    // T22

}  // namespace inferlint::catalog_table
