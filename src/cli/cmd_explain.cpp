// `inferlint explain [T1|slug ...] [--engine E]`: the catalog, for a person.
#include "registry.hpp"

#include "inferlint/core/catalog.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace inferlint::cli::explain_cmd {
namespace {

// Text is wrapped to the terminal, but never wider than 88 columns. COLUMNS wins over
// the terminal's own size, and a pipe gets 88, as Python's shutil.get_terminal_size does.
std::size_t text_width() {
    constexpr std::size_t max_width = 88;
    std::size_t columns = 0;
    if (const char* env = std::getenv("COLUMNS")) {
        std::string_view v = env;
        unsigned long n = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec == std::errc() && end == v.data() + v.size()) columns = n;
    }
    if (columns == 0) {
        winsize ws{};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) columns = ws.ws_col;
    }
    return columns == 0 ? max_width : std::min(columns, max_width);
}

struct Opts {
    std::vector<std::string> names;
};

const Registrar reg{
    Command{.name = "explain",
            .group = Group::learn,
            .order = 1,
            .summary = "what each tripwire catches, and how to check it",
            .takes_engine = TakesEngine::yes,
            .gives_verdicts = GivesVerdicts::no,
            .setup = [](CLI::App& app) {
                auto o = std::make_shared<Opts>();
                app.add_option("ids", o->names, "codes or names, e.g. T1 falling-ceiling; default: all");
                return [o](const Common& common) -> int {
                    std::vector<const Tripwire*> chosen;
                    std::vector<std::string> unknown;
                    if (o->names.empty())
                        for (const auto& t : tripwires()) chosen.push_back(&t);
                    for (const auto& name : o->names) {
                        if (const Tripwire* t = lookup_tripwire(name))
                            chosen.push_back(t);
                        else
                            unknown.push_back(name);
                    }
                    if (!unknown.empty()) {
                        std::cerr << fmt::format("inferlint: unknown tripwire: {} (known: {})\n",
                                                 fmt::join(unknown, ", "), known_tripwires_text());
                        return 2;
                    }
                    if (common.json) {  // the catalog entries, for tools; --engine keeps that engine's note only
                        Json out = Json::array();
                        for (const Tripwire* t : chosen) {
                            Json notes = Json::object();
                            for (const Engine* e : all_engines())
                                if (!t->note(e->id).empty() && (!common.engine || common.engine->id == e->id))
                                    notes[e->key] = std::string(t->note(e->id));
                            out.push_back(Json{{"tripwire", t->id},
                                               {"slug", t->slug},
                                               {"name", t->name},
                                               {"what", t->what},
                                               {"why", t->why},
                                               {"check", t->check},
                                               {"command", t->command},
                                               {"engines", std::move(notes)}});
                        }
                        std::cout << out.dump(2) << "\n";
                        return 0;
                    }
                    const std::size_t width = text_width();
                    std::string out;
                    for (const Tripwire* t : chosen) out += explain_text(*t, common.engine, width);
                    std::cout << out;
                    std::cout.flush();
                    return 0;
                };
            }}};

}  // namespace
}  // namespace inferlint::cli::explain_cmd
