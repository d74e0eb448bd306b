#include "inferlint/checks/snapshot_checks.hpp"

namespace inferlint::checks {

const Engine& engine_of(const std::vector<const Snapshot*>& snapshots) {
    const Engine* e = snapshot_engine(snapshots);
    return e ? *e : vllm();
}

}  // namespace inferlint::checks
