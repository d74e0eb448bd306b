#include "registry.hpp"

#include "inferlint/run/prometheus.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/util/clock.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::snapshot_cmd {
namespace {

struct Opts {
    std::string url, out, prometheus, match, at;
};

// --prometheus: the replica the selector names, as Prometheus scraped it at --at.
int snapshot_from_prometheus(const Opts& o, const Common& common) {
    if (!o.url.empty()) throw InputError("snapshot: give the server's address or --prometheus, not both");
    run::PromSource src;
    src.url = o.prometheus;
    src.selector = o.match;
    const double at = o.at.empty() ? util::epoch_now() : util::parse_moment(o.at, "--at");
    Snapshot snap = run::prometheus_snapshot(src, at);
    const Engine* found = snapshot_engine({&snap});
    if (other_engine(common, found, fmt::format("the series at {}", snap.url), "runs")) return 2;
    snap.save(o.out);
    std::cout << fmt::format("{} samples, scraped at {:.3f} -> {}\n", snap.metrics().size(), snap.t_wall, o.out);
    return 0;
}

const Registrar reg{Command{
    .name = "snapshot",
    .group = Group::record,
    .order = 1,
    .summary = "save the server's metrics, with the time of the reading",
    .takes_engine = TakesEngine::yes,
    .gives_verdicts = GivesVerdicts::no,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("url", o->url, "the server's address, e.g. http://127.0.0.1:8000");
        add_http_options(app);
        app.add_option("-o,--out", o->out, "snapshot file to write")->required();
        app.add_option("--prometheus", o->prometheus,
                       "read the replica from this Prometheus (or Thanos, Mimir, VictoriaMetrics) instead of the "
                       "server, e.g. http://127.0.0.1:9090");
        app.add_option("--match", o->match,
                       "with --prometheus: the label selector that names one replica, e.g. "
                       "'{job=\"vllm\",instance=\"10.0.0.5:8000\"}'");
        app.add_option("--at", o->at,
                       "with --prometheus: the moment, Unix seconds or RFC 3339 (default: now); the snapshot is "
                       "Prometheus's last scrape at or before it");
        return [o](const Common& common) -> int {
            if (!o->prometheus.empty()) return snapshot_from_prometheus(*o, common);
            if (!o->match.empty() || !o->at.empty())
                throw InputError("snapshot: --match and --at go with --prometheus");
            if (o->url.empty()) throw InputError("snapshot: give the server's address (url), or --prometheus URL");
            auto served = run::served_snapshot(o->url, common.engine);
            if (!served.snapshot) {
                std::cerr << "inferlint: " << served.error << "\n";
                return 2;
            }
            if (other_engine(common, served.found, fmt::format("the server at {}", o->url), "runs")) return 2;
            const Snapshot& snap = *served.snapshot;
            snap.save(o->out);
            std::cout << fmt::format("{} samples, scrape {:.3f}s -> {}\n", snap.metrics().size(),
                                     snap.latency_s.value_or(0.0), o->out);
            return 0;
        };
    }}};

}  // namespace
}  // namespace inferlint::cli::snapshot_cmd
