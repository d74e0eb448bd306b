#include "args.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace sim {
namespace {

std::string fold(std::string_view key) {
    std::string k(key);
    for (char& c : k)
        if (c == '-') c = '_';
    return k;
}

}  // namespace

const Option* Args::find(const std::string& key) const {
    const Option* found = nullptr;
    for (const auto& o : options)
        if (o.key == key) found = &o;
    return found;
}

bool Args::flag(const std::string& key) const {
    const Option* o = find(key);
    return o && (!o->value || *o->value == "true" || *o->value == "True" || *o->value == "1");
}

std::string Args::str(const std::string& key, const std::string& fallback) const {
    const Option* o = find(key);
    return o && o->value ? *o->value : fallback;
}

int Args::integer(const std::string& key, int fallback) const {
    const Option* o = find(key);
    if (!o || !o->value) return fallback;
    int v = 0;
    const std::string& t = *o->value;
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size())
        usage_error(fmt::format("argument --{}: invalid int value: '{}'", key, t));
    return v;
}

double Args::number(const std::string& key, double fallback) const {
    const Option* o = find(key);
    if (!o || !o->value) return fallback;
    char* end = nullptr;
    double v = std::strtod(o->value->c_str(), &end);
    if (o->value->empty() || *end != '\0')
        usage_error(fmt::format("argument --{}: invalid float value: '{}'", key, *o->value));
    return v;
}

Args parse_args(const std::vector<std::string>& words, const std::set<std::string>& flags) {
    Args a;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w.size() < 3 || w.compare(0, 2, "--") != 0) {
            a.positional.push_back(w);
            continue;
        }
        std::string body = w.substr(2);
        if (auto eq = body.find('='); eq != std::string::npos) {
            a.options.push_back({fold(body.substr(0, eq)), body.substr(eq + 1)});
            continue;
        }
        std::string key = fold(body);
        bool takes_value = !flags.count(key) && i + 1 < words.size() && words[i + 1].compare(0, 2, "--") != 0;
        if (takes_value) {
            a.options.push_back({key, words[i + 1]});
            ++i;
        } else {
            a.options.push_back({key, std::nullopt});
        }
    }
    return a;
}

void usage_error(const std::string& what) {
    std::fprintf(stderr, "vllm: error: %s\n", what.c_str());
    std::exit(2);
}

}  // namespace sim
