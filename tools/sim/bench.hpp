// `vllm bench serve`: the simulator's load client (see README.md).
#pragma once

#include "args.hpp"

namespace sim {

int bench_main(const Args& args);

}  // namespace sim
