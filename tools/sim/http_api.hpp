// The OpenAI-compatible API of the simulated server: /v1/models, /v1/completions (plain
// and streamed), /health, /version, /metrics, and /sim/state (the simulator's own ground
// truth, for tests). Binds to 127.0.0.1 only.
#pragma once

#include "engine.hpp"
#include "serve.hpp"

#include <memory>

namespace sim {

class HttpApi {
public:
    HttpApi(const ServeConfig& cfg, Shared& shared, int pid, double start_wall);
    ~HttpApi();
    HttpApi(const HttpApi&) = delete;
    HttpApi& operator=(const HttpApi&) = delete;

    int bind();     // the port bound, or -1
    void listen();  // serves until stop()
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace sim
