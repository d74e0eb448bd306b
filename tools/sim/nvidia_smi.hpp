// The simulator as nvidia-smi (a link named nvidia-smi): one simulated, idle card, and,
// for T19's trap, a tenant that appears mid-run.
#pragma once

#include <string>
#include <vector>

namespace sim {

// `argv0`: the link's path; the tenant's readings are counted in `argv0`.readings.
int fake_nvidia_smi(const std::string& argv0, const std::vector<std::string>& words);

}  // namespace sim
