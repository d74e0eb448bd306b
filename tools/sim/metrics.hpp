// /metrics as vLLM 0.30 writes it (prometheus_client's text exposition): the series,
// labels, HELP and TYPE lines, histograms with buckets, _created stamps and the
// cache_config_info series of a real server.
#pragma once

#include "engine.hpp"

#include <map>
#include <tuple>
#include <vector>
#include <string>

namespace sim {

// Requests the API server answered, by handler, method and status class.
struct HttpCounts {
    struct Key {
        std::string handler, method, status;
        bool operator<(const Key& o) const {
            return std::tie(handler, method, status) < std::tie(o.handler, o.method, o.status);
        }
    };
    std::map<Key, long long> requests;
    std::map<Key, double> created;
};

struct MetricsContext {
    std::string model_name;  // the model_name label (the served name)
    double gpu_memory_utilization = 0.9;
    double process_start_wall = 0;
    const HttpCounts* http = nullptr;
};

// The exposition; the caller holds the shared lock.
std::string metrics_text(const Shared& s, const MetricsContext& ctx);

// A number as prometheus_client prints it ("0.0", "22.0", "1.7904702340026703e+09").
std::string prom_number(double v);

}  // namespace sim
