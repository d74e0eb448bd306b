#include "snapshots_input.hpp"

namespace inferlint::cli {

std::optional<std::pair<Snapshot, Snapshot>> load_snapshots(const Common& common, const std::string& before_path,
                                                            const std::string& after_path) {
    Snapshot before = load_snapshot(before_path);
    Snapshot after = load_snapshot(after_path);
    const Engine* found = snapshot_engine({&before, &after});
    if (other_engine(common, found, "the snapshots")) return std::nullopt;
    note_unknown(common, found, "the snapshots");
    return std::pair{std::move(before), std::move(after)};
}

}  // namespace inferlint::cli
