// One look at each line of a boot log: the fixed strings both walks test for, found in
// one pass, and the colour codes and log prefix taken off once.
#include "bootlog_text.hpp"

#include <algorithm>
#include <stdexcept>

namespace inferlint::parse::detail {

NeedleSet::NeedleSet(std::vector<std::string_view> needles)
    : needles_(std::move(needles)), bits_(65536 / 64, 0), starts_(65536 + 1, 0) {
    if (needles_.size() > 0xFFFF) throw std::logic_error("NeedleSet: too many needles");
    std::vector<std::pair<std::uint32_t, std::uint16_t>> keyed;
    for (std::size_t id = 0; id < needles_.size(); ++id) {
        const auto n = static_cast<std::uint16_t>(id);
        if (needles_[id].empty()) continue;  // a slot with nothing to find: never found
        if (needles_[id].size() < 4) {
            short_.push_back(n);
            continue;
        }
        keyed.emplace_back(bucket(needles_[id].data()), n);
    }
    std::sort(keyed.begin(), keyed.end());
    for (auto [b, id] : keyed) {
        bits_[b / 64] |= std::uint64_t{1} << (b % 64);
        ++starts_[b + 1];
        ids_.push_back(id);
    }
    for (std::size_t b = 0; b < 65536; ++b) starts_[b + 1] += starts_[b];
}

void NeedleSet::scan(std::string_view line, NeedleHits& hits) const {
    if (hits.at_.size() != needles_.size()) hits.at_.assign(needles_.size(), std::string_view::npos);
    for (auto id : hits.found_) hits.at_[id] = std::string_view::npos;
    hits.found_.clear();
    const char* p = line.data();
    const std::size_t n = line.size();
    if (n >= 4) {
        for (std::size_t i = 0; i + 4 <= n; ++i) {
            const std::uint32_t b = bucket(p + i);
            if (!((bits_[b / 64] >> (b % 64)) & 1)) continue;
            for (std::uint32_t k = starts_[b]; k < starts_[b + 1]; ++k) {
                const std::uint16_t id = ids_[k];
                const std::string_view nd = needles_[id];
                if (hits.at_[id] != std::string_view::npos || nd.size() > n - i) continue;
                if (std::memcmp(p + i, nd.data(), nd.size()) != 0) continue;
                hits.at_[id] = i;
                hits.found_.push_back(id);
            }
        }
    }
    for (auto id : short_) {
        auto at = line.find(needles_[id]);
        if (at == std::string_view::npos) continue;
        hits.at_[id] = at;
        hits.found_.push_back(id);
    }
}

const NeedleSet& line_needles() {
    static const NeedleSet set = [] {
        std::vector<std::string_view> all = facts_needles();
        const auto& failure = failure_needles();
        all.insert(all.end(), failure.begin(), failure.end());
        return NeedleSet(std::move(all));
    }();
    return set;
}

void strip_ansi_into(std::string& out, std::string_view line) {
    // ESC [ params letter
    out.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        auto esc = line.find('\x1b', i);
        if (esc == std::string_view::npos) {
            out.append(line.substr(i));
            break;
        }
        out.append(line.substr(i, esc - i));
        std::size_t j = esc + 1;
        if (j < line.size() && line[j] == '[') {
            std::size_t k = j + 1;
            while (k < line.size() && ((line[k] >= '0' && line[k] <= '9') || line[k] == ';' || line[k] == '?')) ++k;
            char c = k < line.size() ? line[k] : '\0';
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
                i = k + 1;
                continue;
            }
        }
        out += '\x1b';
        i = esc + 1;
    }
}

void LineScan::read(std::string_view raw) {
    raw_ = raw;
    ansi_ = raw.find('\x1b') != std::string_view::npos;
    if (ansi_) {
        strip_ansi_into(owned_, raw);
        line_ = owned_;
    } else {
        line_ = raw;
    }
    line_needles().scan(line_, hits_);
    prefix_ = !line_.empty() && line_[0] == '(' ? match_log_prefix(line_) : std::nullopt;
}

}  // namespace inferlint::parse::detail
