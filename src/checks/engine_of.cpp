#include "inferlint/checks/snapshot_checks.hpp"

namespace inferlint::checks {

const Engine& engine_of(const std::vector<const Snapshot*>& snapshots) {
    std::vector<std::string> names;
    for (const Snapshot* s : snapshots) {
        auto n = s->metrics().names();
        names.insert(names.end(), n.begin(), n.end());
    }
    const Engine* e = named_by(names);
    return e ? *e : vllm();
}

}  // namespace inferlint::checks
