// Loading the before/after snapshots the way every snapshot command does: refuse
// another engine's, note when none is told.
#pragma once

#include "registry.hpp"

#include "inferlint/parse/snapshot.hpp"

#include <optional>
#include <utility>

namespace inferlint::cli {

// The two snapshots; nullopt (said on stderr) when they came from another engine than named.
std::optional<std::pair<Snapshot, Snapshot>> load_snapshots(const Common& common, const std::string& before,
                                                            const std::string& after);

}  // namespace inferlint::cli
