#include "registry.hpp"

#include "inferlint/run/scrape.hpp"
#include "inferlint/run/watch.hpp"
#include "inferlint/util/error.hpp"
#include "inferlint/util/files.hpp"
#include "inferlint/util/signals.hpp"
#include "inferlint/util/url.hpp"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

// A namespace of its own: the unity build compiles the commands together, and every
// command has its Opts and its reg.
namespace inferlint::cli::watch_cmd {
namespace {

namespace fs = std::filesystem;

struct Opts {
    std::vector<std::string> urls, more_urls;
    std::string out;
    double interval_s = 0.5;
    std::optional<double> duration_s;
};

// Each server its own scraper, over a connection kept open between its readings.
using Scrapers = std::map<std::string, std::unique_ptr<run::Scraper>>;

void note_line(const std::string& line) { std::cerr << line << "\n"; }

// The servers' first readings, before any file is made: one that cannot be read, serves
// no engine's metrics or another engine than --engine is refused here (exit 2).
std::optional<std::vector<const Engine*>> first_readings(const std::vector<std::string>& urls, const Common& common,
                                                         Scrapers& scrapers) {
    std::vector<const Engine*> engines;
    for (const std::string& url : urls) {
        auto& scraper = scrapers[url];
        scraper = std::make_unique<run::Scraper>(run::kept_alive_getter());
        auto served = run::served_snapshot(url, common.engine, *scraper);
        if (!served.snapshot) {
            std::cerr << "inferlint: " << served.error << "\n";
            return std::nullopt;
        }
        if (other_engine(common, served.found, fmt::format("the server at {}", url), "runs")) return std::nullopt;
        engines.push_back(served.found);
    }
    return engines;
}

int watch_one(const Opts& o, const std::string& url, const Common& common) {
    Scrapers scrapers;
    auto engines = first_readings({url}, common, scrapers);
    if (!engines) return 2;
    util::make_parent(o.out);
    util::RecordFile file(o.out);  // every sample a whole line, a full disk included

    // SIGINT and SIGTERM end the recording cleanly; the old handlers come back after.
    util::SignalGuard signals({SIGINT, SIGTERM}, util::BrokenPipe::keep);
    run::WatchOptions opts{.interval_s = o.interval_s, .duration_s = o.duration_s};
    run::Scraper& scraper = *scrapers.at(url);
    auto scrape = [&scraper](const std::string& u) { return scraper.scrape(u); };
    run::WatchReport report = run::watch(url, file, opts, util::signal_caught(), scrape, note_line, engines->front());
    file.close();
    if (!file) throw InputError(file.error().empty() ? o.out + ": cannot write" : file.error());
    std::cout << fmt::format("{} samples -> {}\n", report.samples, o.out);
    return 0;
}

// Several servers: -o is a folder, with one file per server (run::replica_series_name).
int watch_several(const Opts& o, const std::vector<std::string>& urls, const Common& common) {
    std::map<std::string, std::string> by_name;  // file name -> the address that takes it
    std::vector<fs::path> paths;
    for (const std::string& url : urls) {
        const std::string name = run::replica_series_name(url);
        if (auto [it, fresh] = by_name.emplace(name, url); !fresh) {
            if (util::normalise_base_url(it->second) == util::normalise_base_url(url))
                throw InputError(fmt::format("watch: {} is given twice", url));
            throw InputError(fmt::format("watch: {} and {} would both be recorded to {}; watch them apart", it->second,
                                         url, (fs::path(o.out) / name).string()));
        }
        paths.push_back(fs::path(o.out) / name);
    }
    std::error_code ec;
    if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
        throw InputError(fmt::format("watch: with several servers -o names a folder, and {} is a file", o.out));

    Scrapers scrapers;
    auto engines = first_readings(urls, common, scrapers);
    if (!engines) return 2;
    std::vector<std::unique_ptr<util::RecordFile>> files;
    std::vector<run::WatchTarget> targets;
    for (std::size_t i = 0; i < urls.size(); ++i) {
        util::make_parent(paths[i]);
        files.push_back(std::make_unique<util::RecordFile>(paths[i]));
        targets.push_back({.base_url = urls[i], .out = files.back().get(), .engine = (*engines)[i]});
    }

    util::SignalGuard signals({SIGINT, SIGTERM}, util::BrokenPipe::keep);
    run::WatchOptions opts{.interval_s = o.interval_s, .duration_s = o.duration_s};
    // Each server's thread reads only its own scraper; the map is not changed from here on.
    auto scrape = [&scrapers](const std::string& u) { return scrapers.at(u)->scrape(u); };
    std::vector<run::WatchReport> reports = run::watch_all(targets, opts, util::signal_caught(), scrape, note_line);
    std::string failed;
    for (std::size_t i = 0; i < urls.size(); ++i) {
        files[i]->close();
        if (!*files[i] && failed.empty())
            failed = files[i]->error().empty() ? paths[i].string() + ": cannot write" : files[i]->error();
        std::cout << fmt::format("{} samples -> {}\n", reports[i].samples, paths[i].string());
    }
    if (!failed.empty()) throw InputError(failed);
    return 0;
}

const Registrar reg{Command{
    .name = "watch",
    .group = Group::record,
    .order = 2,
    .summary = "record the running, waiting and KV-cache readings to a series file",
    .takes_engine = TakesEngine::yes,
    .gives_verdicts = GivesVerdicts::no,
    .setup = [](CLI::App& app) {
        auto o = std::make_shared<Opts>();
        app.add_option("url", o->urls,
                       "the server's address, e.g. http://127.0.0.1:8000; several (or --url): the replicas of a "
                       "fleet, on one schedule");
        app.add_option("--url", o->more_urls,
                       "another server to watch (repeatable): at each tick every server is read at once, each by a "
                       "thread of its own, into a file of its own in the -o folder; one that fails has gaps, the "
                       "others go on");
        add_http_options(app);
        app.add_option("-o,--out", o->out,
                       "series file to write; with several servers a folder (made if missing), each server's file "
                       "HOST_PORT.series.jsonl, with the path after the port if the address has one "
                       "(http://gw/replica-0: gw_80_replica-0.series.jsonl)")
            ->required();
        app.add_option("--interval", o->interval_s, "seconds between readings")
            ->default_val(0.5)
            ->check(CLI::Range(0.001, 3600.0));
        app.add_option("--duration", o->duration_s, "seconds; default until SIGINT or SIGTERM")
            ->check(CLI::NonNegativeNumber);
        return [o](const Common& common) -> int {
            std::vector<std::string> urls = o->urls;
            urls.insert(urls.end(), o->more_urls.begin(), o->more_urls.end());
            if (urls.empty()) throw InputError("watch: give the server's address (url), or several");
            if (urls.size() == 1) return watch_one(*o, urls.front(), common);
            return watch_several(*o, urls, common);
        };
    }}};

}  // namespace
}  // namespace inferlint::cli::watch_cmd
