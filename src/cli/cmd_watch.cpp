#include "registry.hpp"

#include "inferlint/run/scrape.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/signals.hpp"

#include <fmt/format.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>

// A namespace of its own: the unity build compiles the commands together, and every
// command has its Opts and its reg.
namespace inferlint::cli::watch_cmd {
namespace {

struct Opts {
    std::string url, out;
    double interval_s = 0.5;
    std::optional<double> duration_s;
};

const Registrar reg{Command{
    .name = "watch",
    .group = Group::record,
    .order = 2,
    .summary = "record the running, waiting and KV-cache readings to a series file",
    .takes_engine = TakesEngine::yes,
    .gives_verdicts = GivesVerdicts::no,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("url", o->url, "the server's address, e.g. http://127.0.0.1:8000")->required();
        add_http_options(app);
        app.add_option("-o,--out", o->out, "series file to write")->required();
        app.add_option("--interval", o->interval_s, "seconds between readings")
            ->default_val(0.5)
            ->check(CLI::Range(0.001, 3600.0));
        app.add_option("--duration", o->duration_s, "seconds; default until SIGINT or SIGTERM")
            ->check(CLI::NonNegativeNumber);
        return [o](const Common& common) -> int {
            auto served = run::served_snapshot(o->url, common.engine);
            if (!served.snapshot) {
                std::cerr << "inferlint: " << served.error << "\n";
                return 2;
            }
            if (other_engine(common, served.found, fmt::format("the server at {}", o->url), "runs")) return 2;

            util::make_parent(o->out);
            util::RecordFile file(o->out);  // every sample a whole line, a full disk included

            // SIGINT and SIGTERM end the recording cleanly; the old handlers come back after.
            util::SignalGuard signals({SIGINT, SIGTERM}, util::BrokenPipe::keep);
            run::WatchOptions opts{.interval_s = o->interval_s, .duration_s = o->duration_s};
            auto scrape = [](const std::string& url) { return run::default_scraper().scrape(url); };
            auto note = [](const std::string& line) { std::cerr << line << "\n"; };
            run::WatchReport report = run::watch(o->url, file, opts, util::signal_caught(), scrape, note, served.found);
            file.close();
            if (!file) throw InputError(file.error().empty() ? o->out + ": cannot write" : file.error());
            std::cout << fmt::format("{} samples -> {}\n", report.samples, o->out);
            return 0;
        };
    }}};

}  // namespace
}  // namespace inferlint::cli::watch_cmd
