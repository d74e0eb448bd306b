// What a run reads from a server before its load, the same for one server and for each
// server of a fleet: which engine its metrics are, and its boot log's facts.
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/run/scrape.hpp"
#include "inferlint/util/files.hpp"
#include "xray_stages.hpp"

#include <fmt/format.h>

namespace inferlint::xray::detail {

ServedRead read_served(const std::string& url, const Engine* engine, std::string_view engine_is) {
    ServedRead out;
    auto served = run::served_snapshot(url, engine);
    if (!served.snapshot) {
        out.problem = served.error;
    } else if (engine && served.found != engine) {
        out.problem =
            fmt::format("{} {}, but the server at {} is {}'s", engine_is, engine->name, url, served.found->name);
        out.wrong_engine = true;
    } else {
        out.found = served.found;
    }
    return out;
}

BootRead read_boot(const fs::path& log, const fs::path& folder, const std::string& url, const Engine* engine,
                   std::string_view engine_is, std::string_view log_words) {
    BootRead out;
    out.text = read_log(log);
    out.kept = log;
    if (const Engine* found = from_log(out.text); engine && found && found != engine) {
        out.problem = fmt::format("{} {}, but {} is {}'s", engine_is, engine->name, log_words, found->name);
        out.wrong_engine = true;
        return out;
    }
    out.facts = parse::parse_boot_log(out.text, engine);
    // SGLang prints no version in its log; its server says it over HTTP.
    if (!out.facts->vllm_version) out.facts->server_version = server_version(url);
    // Attached to a running server: the run's folder keeps a copy of the log it was checked
    // on, as boot.log, so `inferlint report DIR` finds it later.
    const fs::path kept = folder / "boot.log";
    std::error_code ec;
    if (!fs::equivalent(log, kept, ec)) {
        util::write_file(kept, out.text);
        out.kept = kept;
        out.copied = true;
    }
    return out;
}

}  // namespace inferlint::xray::detail
