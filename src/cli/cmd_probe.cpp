#include "registry.hpp"

#include "inferlint/run/probe.hpp"

namespace inferlint::cli::probe_cmd {
namespace {

struct Opts {
    std::string url;
    run::ProbeOptions probe;
    std::string model;
};

const Registrar reg{
    Command{.name = "probe",
            .group = Group::record,
            .order = 3,
            .summary = "T7: one request, a concurrent burst, then a health check",
            .takes_engine = TakesEngine::no,
            .setup = [](CLI::App& app) {
                auto o = std::make_shared<Opts>();
                app.add_option("url", o->url, "the server's address, e.g. http://127.0.0.1:8000")->required();
                add_http_options(app);
                app.add_option("--model", o->model, "model to ask (default: the first one /v1/models lists)");
                app.add_option("--concurrency", o->probe.concurrency, "requests in the burst")
                    ->default_val(8)
                    ->check(CLI::Range(1, 1024));
                app.add_option("--max-tokens", o->probe.max_tokens, "tokens each request asks for")
                    ->default_val(16)
                    ->check(CLI::Range(1, 1 << 20));
                app.add_option("--timeout", o->probe.timeout_s, "seconds each request may take")
                    ->default_val(300.0)
                    ->check(CLI::PositiveNumber);
                return [o](const Common& common) -> int {
                    run::ProbeOptions opts = o->probe;
                    if (!o->model.empty()) opts.model = o->model;
                    return emit({run::probe(o->url, opts)}, common);
                };
            }}};

}  // namespace
}  // namespace inferlint::cli::probe_cmd
