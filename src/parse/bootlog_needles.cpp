// One look at each line of a boot log: the fixed strings both walks test for, found in
// one pass, and the colour codes and log prefix taken off once.
#include "bootlog_text.hpp"

#include <algorithm>
#include <stdexcept>

namespace inferlint::parse::detail {

NeedleSet::NeedleSet(std::vector<std::string_view> needles)
    : needles_(std::move(needles)), shift_(65536, 0), bits_(65536 / 64, 0), starts_(65536 + 1, 0) {
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
        m_ = m_ ? std::min(m_, needles_[id].size()) : needles_[id].size();
    }
    std::sort(keyed.begin(), keyed.end());
    for (auto [b, id] : keyed) {
        bits_[b / 64] |= std::uint64_t{1} << (b % 64);
        ++starts_[b + 1];
        ids_.push_back(id);
    }
    for (std::size_t b = 0; b < 65536; ++b) starts_[b + 1] += starts_[b];
    if (m_ == 0) return;
    // A pair ending at offset j of a needle's first m bytes: the window may move m-1-j.
    const auto most = static_cast<std::uint8_t>(std::min<std::size_t>(m_ - 1, 255));
    std::fill(shift_.begin(), shift_.end(), most);
    for (auto [b, id] : keyed) {
        const std::string_view nd = needles_[id];
        for (std::size_t j = 1; j < m_; ++j) {
            auto& s = shift_[pair_at(nd.data() + j - 1)];
            s = std::min<std::uint8_t>(s, static_cast<std::uint8_t>(std::min<std::size_t>(m_ - 1 - j, 255)));
        }
    }
}

void NeedleSet::compare_at(std::string_view line, std::size_t start, std::vector<std::size_t>& at,
                           std::vector<std::uint16_t>& found) const {
    const std::uint32_t b = bucket(line.data() + start);
    if (!((bits_[b / 64] >> (b % 64)) & 1)) return;
    for (std::uint32_t k = starts_[b]; k < starts_[b + 1]; ++k) {
        const std::uint16_t id = ids_[k];
        const std::string_view nd = needles_[id];
        if (at[id] != std::string_view::npos || nd.size() > line.size() - start) continue;
        if (std::memcmp(line.data() + start, nd.data(), nd.size()) == 0) NeedleHits::keep(at, found, id, start);
    }
}

void NeedleSet::walk(std::string_view line, std::size_t from, std::size_t to, std::vector<std::size_t>& at,
                     std::vector<std::uint16_t>& found) const {
    for (std::size_t i = from; i < to;) {
        if (const std::uint8_t s = shift_[pair_at(line.data() + i - 1)]) {
            i += s;
            continue;
        }
        compare_at(line, i - (m_ - 1), at, found);
        ++i;
    }
}

void NeedleSet::scan(std::string_view line, NeedleHits& hits) const {
    if (hits.at_.size() != needles_.size()) {
        hits.at_.assign(needles_.size(), std::string_view::npos);
        hits.later_at_.assign(needles_.size(), std::string_view::npos);
    }
    for (auto id : hits.found_) hits.at_[id] = std::string_view::npos;
    hits.found_.clear();
    const std::size_t n = line.size();
    // i: the last byte of the window that starts at i - (m - 1).
    if (m_ && n >= 64) {
        // Windows starting before mid, and from mid on, in step; a needle's first place is
        // the first half's if it has one.
        const std::size_t mid = n / 2, first_end = mid + m_ - 1;
        std::size_t a = m_ - 1, b = first_end;
        const char* p = line.data();
        while (a < first_end && b < n) {
            if (const std::uint8_t s = shift_[pair_at(p + a - 1)]) {
                a += s;
            } else {
                compare_at(line, a - (m_ - 1), hits.at_, hits.found_);
                ++a;
            }
            if (const std::uint8_t s = shift_[pair_at(p + b - 1)]) {
                b += s;
            } else {
                compare_at(line, b - (m_ - 1), hits.later_at_, hits.later_found_);
                ++b;
            }
        }
        walk(line, a, first_end, hits.at_, hits.found_);
        walk(line, b, n, hits.later_at_, hits.later_found_);
        for (auto id : hits.later_found_) {
            NeedleHits::keep(hits.at_, hits.found_, id, hits.later_at_[id]);
            hits.later_at_[id] = std::string_view::npos;
        }
        hits.later_found_.clear();
    } else if (m_ && n >= m_) {
        walk(line, m_ - 1, n, hits.at_, hits.found_);
    }
    for (auto id : short_) {
        auto at = line.find(needles_[id]);
        if (at != std::string_view::npos) NeedleHits::keep(hits.at_, hits.found_, id, at);
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

std::size_t wrapper_end(std::string_view line) {
    std::size_t p = 0;
    // "grep -n": "137:" before the line.
    while (p < line.size() && line[p] >= '0' && line[p] <= '9') ++p;
    if (p > 0 && p < 8 && p + 1 < line.size() && line[p] == ':' && !(line[p + 1] >= '0' && line[p + 1] <= '9'))
        ++p;
    else
        p = 0;
    // journald (journalctl's short format): "Aug 24 01:02:31 host unit[959645]: ".
    auto digit = [&](std::size_t i) { return i < line.size() && line[i] >= '0' && line[i] <= '9'; };
    if (line.size() > p + 17 && line[p] >= 'A' && line[p] <= 'Z' && line[p + 3] == ' ' && digit(p + 7) &&
        line[p + 6] == ' ' && line[p + 9] == ':' && line[p + 12] == ':' && line[p + 15] == ' ') {
        const auto colon = line.find("]: ", p + 16);
        const auto space = line.find(' ', p + 16);  // the host has none; the unit[pid] follows it
        if (colon != std::string_view::npos && space != std::string_view::npos && line.find(' ', space + 1) > colon)
            return colon + 3;
    }
    return p;
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
    // What people paste a log through (journalctl, grep -n) goes before the engine's prefix.
    if (!line_.empty() && ((line_[0] >= '0' && line_[0] <= '9') || (line_[0] >= 'A' && line_[0] <= 'Z')))
        line_.remove_prefix(wrapper_end(line_));
    needles_->scan(line_, hits_);
    // The process and pid as match_log_prefix reads them; the rest when message() is asked.
    rest_read_ = false;
    if (line_.empty() || line_[0] != '(') {
        prefix_.reset();
    } else if (!head_.empty() && line_.starts_with(head_)) {
        LogPrefix p;
        p.proc = line_.substr(1, head_proc_size_);
        p.pid = head_pid_;
        prefix_ = p;
    } else {
        prefix_ = match_log_prefix(line_);
        if (prefix_) {
            head_.assign(line_.substr(0, line_.find(')') + 1));
            head_pid_ = prefix_->pid;
            head_proc_size_ = prefix_->proc.size();
            rest_read_ = true;  // match_log_prefix read it all
        } else {
            head_.clear();
        }
    }
}

}  // namespace inferlint::parse::detail
