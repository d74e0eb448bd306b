#include "registry.hpp"

#include "inferlint/run/scrape.hpp"
#include "inferlint/util/files.hpp"

#include <fmt/format.h>

#include <iostream>

namespace inferlint::cli::snapshot_cmd {
namespace {

struct Opts {
    std::string url, out;
};

const Registrar reg{Command{
    .name = "snapshot",
    .group = Group::record,
    .order = 1,
    .summary = "save the server's metrics, with the time of the reading",
    .takes_engine = TakesEngine::yes,
    .gives_verdicts = GivesVerdicts::no,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("url", o->url, "the server's address, e.g. http://127.0.0.1:8000")->required();
        add_http_options(app);
        app.add_option("-o,--out", o->out, "snapshot file to write")->required();
        return [o](const Common& common) -> int {
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
