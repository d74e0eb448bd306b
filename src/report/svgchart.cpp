#include "inferlint/report/svgchart.hpp"

#include "inferlint/core/result.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace inferlint::report::svg {

namespace {
constexpr util::text::Escape kHtml[] = {
    {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#x27;"}};
}  // namespace

std::string escape_html(std::string_view text) { return util::text::escape_chars(text, kHtml); }

std::string num(double v) {
    std::string s = fmt::format("{:.2f}", v);
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    if (s == "-0" || s.empty()) return "0";
    return s;
}

std::string grouped(double v, int digits) {
    if (!std::isfinite(v)) return fmt::format("{}", v);
    std::string s = fmt::format("{:.{}f}", v, digits);
    std::size_t start = (s[0] == '-') ? 1 : 0;
    std::size_t dot = s.find('.');
    std::size_t int_end = dot == std::string::npos ? s.size() : dot;
    std::string out = s.substr(0, start);
    std::size_t len = int_end - start;
    for (std::size_t i = 0; i < len; ++i) {
        if (i > 0 && (len - i) % 3 == 0) out += ',';
        out += s[start + i];
    }
    out += s.substr(int_end);
    return out;
}

std::vector<double> nice_ticks(double lo, double hi, int count) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) throw std::invalid_argument("tick range must be finite");
    if (hi < lo) std::swap(lo, hi);
    if (hi == lo) hi = lo + 1.0;
    double raw = (hi - lo) / std::max(count - 1, 1);
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * mag;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (m * mag >= raw - 1e-12) {
            step = m * mag;
            break;
        }
    }
    double start = std::floor(lo / step + 1e-9) * step;
    double stop = std::ceil(hi / step - 1e-9) * step;
    long long n = std::llround((stop - start) / step);
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(n + 1));
    for (long long i = 0; i <= n; ++i) {
        double v = start + static_cast<double>(i) * step;
        out.push_back(std::round(v * 1e10) / 1e10);
    }
    return out;
}

namespace {

std::string default_y(double v) { return grouped(v, 0); }

// A path through the points; nullopt lifts the pen, so a gap is never bridged.
std::string line_path(const std::vector<double>& xs, const std::vector<std::optional<double>>& ys, const Scale& sx,
                      const Scale& sy, bool step) {
    std::string d;
    bool pen = false;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (!ys[i]) {
            pen = false;
            continue;
        }
        std::string px = num(sx(xs[i])), py = num(sy(*ys[i]));
        if (!pen) {
            d += "M" + px + " " + py;
            pen = true;
        } else if (step) {
            d += "H" + px + "V" + py;
        } else {
            d += "L" + px + " " + py;
        }
    }
    return d;
}

// A closed wash under each unbroken run of points, down to zero.
std::string area_path(const std::vector<double>& xs, const std::vector<std::optional<double>>& ys, const Scale& sx,
                      const Scale& sy) {
    std::string out;
    std::string base = num(sy(0.0));
    std::size_t run_start = 0, run_len = 0;
    auto close = [&](std::size_t end) {
        if (run_len > 1) {
            out += "M" + num(sx(xs[run_start])) + " " + base;
            for (std::size_t i = run_start; i < end; ++i) out += "L" + num(sx(xs[i])) + " " + num(sy(*ys[i]));
            out += "L" + num(sx(xs[end - 1])) + " " + base + "Z";
        }
        run_len = 0;
    };
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (!ys[i]) {
            close(i);
            continue;
        }
        if (run_len == 0) run_start = i;
        ++run_len;
    }
    close(xs.size());
    return out;
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// JSON for the page's script; "</" would end the <script> element early.
std::string json_script(const Json& doc) {
    std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::string safe;
    safe.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
            safe += "<\\/";
            ++i;
        } else {
            safe += text[i];
        }
    }
    return R"(<script type="application/json" class="chart-data">)" + safe + "</script>";
}

// The top of the y axis: the chart's own, or the highest value or reference line.
double y_top(const TimeChart& c) {
    if (c.y_max) return *c.y_max;
    bool any = false;
    double top = 0.0;
    for (const auto& ln : c.lines)
        for (const auto& y : ln.ys)
            if (y && std::isfinite(*y)) top = any ? std::max(top, *y) : *y, any = true;
    for (const auto& r : c.refs) top = any ? std::max(top, r.y) : r.y, any = true;
    return any ? top : 1.0;
}

// The lines' labels at their last points, only where no two would collide.
std::string end_labels(const TimeChart& c, const Scale& sy) {
    std::vector<std::pair<double, const Line*>> ends;
    for (const auto& ln : c.lines) {
        for (auto it = ln.ys.rbegin(); it != ln.ys.rend(); ++it) {
            if (*it) {
                ends.emplace_back(sy(**it), &ln);
                break;
            }
        }
    }
    std::vector<double> placed;
    for (const auto& e : ends) placed.push_back(e.first);
    for (const auto& r : c.refs) placed.push_back(sy(r.y));
    bool gaps_ok = true;
    for (std::size_t i = 0; i < placed.size() && gaps_ok; ++i)
        for (std::size_t j = i + 1; j < placed.size(); ++j)
            if (std::abs(placed[i] - placed[j]) < 14) gaps_ok = false;
    std::string o;
    if (c.lines.size() > 1 && gaps_ok) {
        for (const auto& [y, ln] : ends)
            o += fmt::format(R"(<text class="lab" x="{}" y="{}" dominant-baseline="middle">{}</text>)",
                             c.width - kMarginRight + 8, num(y), escape_html(ln->label));
    }
    return o;
}

// What the page's script reads to show the values under the pointer.
Json time_data(const TimeChart& c) {
    Json data = Json::object();
    data["w"] = c.width;
    data["x0"] = c.xs.front();
    data["x1"] = c.xs.back();
    data["px0"] = kMarginLeft;
    data["px1"] = c.width - kMarginRight;
    Json x = Json::array();
    for (double v : c.xs) x.push_back(round3(v));
    data["x"] = std::move(x);
    data["xUnit"] = c.x_unit;
    data["yUnit"] = c.y_unit;
    Json series = Json::array();
    for (const auto& ln : c.lines) {
        Json ys = Json::array();
        for (const auto& y : ln.ys) ys.push_back(y && std::isfinite(*y) ? Json(round3(*y)) : Json(nullptr));
        series.push_back(Json{{"label", ln.label}, {"cls", ln.cls}, {"ys", std::move(ys)}});
    }
    data["series"] = std::move(series);
    Json events = Json::array();
    for (const auto& e : c.events) events.push_back(Json{{"x", round3(e.x)}, {"label", e.label}});
    data["events"] = std::move(events);
    return data;
}

}  // namespace

std::string render_time(const TimeChart& c) {
    if (c.xs.empty()) throw std::invalid_argument("chart has no x values");
    for (const auto& ln : c.lines) {
        if (ln.ys.size() != c.xs.size())
            throw std::invalid_argument(
                fmt::format("series '{}' has {} values for {} xs", ln.label, ln.ys.size(), c.xs.size()));
    }
    const int w = c.width, h = c.height;
    const Fmt y_fmt = c.y_fmt ? c.y_fmt : Fmt(default_y);
    double x0 = c.xs.front(), x1 = c.xs.back();
    std::vector<double> yt = nice_ticks(0.0, y_top(c));
    std::vector<double> xt;
    for (double t : nice_ticks(x0, x1, 7))
        if (x0 - 1e-9 <= t && t <= x1 + 1e-9) xt.push_back(t);
    Scale sx{x0, x1, double(kMarginLeft), double(w - kMarginRight)};
    Scale sy{yt.front(), yt.back(), double(h - kMarginBottom), double(kMarginTop)};

    std::string o =
        fmt::format(R"(<svg viewBox="0 0 {} {}" role="img" aria-label="{}" preserveAspectRatio="xMidYMid meet">)", w, h,
                    escape_html(c.aria));
    for (double t : yt) {
        std::string y = num(sy(t));
        o += fmt::format(R"(<line class="{}" x1="{}" x2="{}" y1="{}" y2="{}"/>)", t == 0 ? "axis" : "grid", kMarginLeft,
                         w - kMarginRight, y, y);
        o += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="end" dominant-baseline="middle">{}</text>)",
                         kMarginLeft - 8, y, escape_html(y_fmt(t)));
    }
    for (double t : xt)
        o += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>)", num(sx(t)),
                         h - kMarginBottom + 18, escape_html(num(t)));
    o += fmt::format(R"(<text class="tick unit" x="{}" y="{}">{}</text>)", w - kMarginRight + 16,
                     h - kMarginBottom + 18, escape_html(c.x_unit));
    for (const auto& r : c.refs) {
        std::string y = num(sy(r.y));
        o += fmt::format(R"(<line class="ref" x1="{}" x2="{}" y1="{}" y2="{}"/>)", kMarginLeft, w - kMarginRight, y, y);
        o += fmt::format(R"(<text class="lab" x="{}" y="{}" dominant-baseline="middle">{}</text>)",
                         w - kMarginRight + 8, y, escape_html(r.label));
    }
    for (const auto& ln : c.lines) {
        if (ln.kind == LineKind::area)
            o += fmt::format(R"(<path class="wash {}" d="{}"/>)", escape_html(ln.cls), area_path(c.xs, ln.ys, sx, sy));
        o += fmt::format(R"(<path class="mark {}" d="{}"/>)", escape_html(ln.cls),
                         line_path(c.xs, ln.ys, sx, sy, ln.kind == LineKind::step));
    }

    // Direct end labels, only where they cannot collide; the legend names the lines anyway.
    o += end_labels(c, sy);

    for (const auto& ev : c.events) {
        double x = sx(ev.x);
        double top = kMarginTop - 2;
        o += fmt::format(R"(<path class="ev" d="M{} {}H{}L{} {}Z"><title>{}</title></path>)", num(x - 5), num(top),
                         num(x + 5), num(x), num(top + 8), escape_html(ev.label));
    }
    o += fmt::format(R"(<line class="cross" x1="0" x2="0" y1="{}" y2="{}" visibility="hidden"/>)", kMarginTop,
                     h - kMarginBottom);
    o += fmt::format(
        R"(<rect class="hit" x="{}" y="{}" width="{}" height="{}" tabindex="0" aria-label="{}. Use the arrow keys to read values."/>)",
        kMarginLeft, kMarginTop, w - kMarginLeft - kMarginRight, h - kMarginTop - kMarginBottom, escape_html(c.aria));
    o += "</svg>";

    return o + json_script(time_data(c));
}

namespace {
std::string default_bar_fmt(double v) { return grouped(v, 1); }
std::string default_tick_fmt(double v) { return v == std::trunc(v) ? grouped(v, 0) : grouped(v, 1); }
}  // namespace

std::string render_bars(const BarChart& c) {
    if (c.bars.empty()) throw std::invalid_argument("bar chart has no bars");
    const Fmt f = c.fmt ? c.fmt : Fmt(default_bar_fmt);
    const Fmt tick_fmt = c.tick_fmt ? c.tick_fmt : Fmt(default_tick_fmt);
    const int top = 8, bottom = 30;
    const int n = static_cast<int>(c.bars.size());
    const int h = top + bottom + n * (c.thickness + c.gap) - c.gap;
    const double x_left = c.label_width, x_right = c.width - 72;
    double top_value = c.bars.front().value;
    for (const auto& b : c.bars) top_value = std::max(top_value, b.value);
    std::vector<double> xt = nice_ticks(0.0, top_value, 5);
    Scale sx{0.0, xt.back(), x_left, x_right};
    std::string o =
        fmt::format(R"(<svg viewBox="0 0 {} {}" role="img" aria-label="{}" preserveAspectRatio="xMidYMid meet">)",
                    c.width, h, escape_html(c.aria));
    for (double t : xt) {
        std::string x = num(sx(t));
        o += fmt::format(R"(<line class="{}" x1="{}" x2="{}" y1="{}" y2="{}"/>)", t == 0 ? "axis" : "grid", x, x,
                         top - 4, h - bottom + 4);
        o += fmt::format(R"(<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>)", x, h - bottom + 20,
                         escape_html(tick_fmt(t)));
    }
    // After the last tick's label, centred on x_right: about 6.5 units a character.
    double unit_x = x_right + 3.3 * static_cast<double>(tick_fmt(xt.back()).size()) + 8;
    o += fmt::format(R"(<text class="tick unit" x="{}" y="{}">{}</text>)", num(unit_x), h - bottom + 20,
                     escape_html(c.unit));
    const double r = 4.0;
    for (int i = 0; i < n; ++i) {
        const Bar& b = c.bars[static_cast<std::size_t>(i)];
        double y = top + i * (c.thickness + c.gap);
        double x_end = sx(b.value);
        double length = x_end - x_left;
        double rr = std::min({r, std::max(length, 0.0), c.thickness / 2.0});
        double t = c.thickness;
        std::string d = fmt::format("M{} {}H{}A{} {} 0 0 1 {} {}V{}A{} {} 0 0 1 {} {}H{}Z", num(x_left), num(y),
                                    num(x_end - rr), num(rr), num(rr), num(x_end), num(y + rr), num(y + t - rr),
                                    num(rr), num(rr), num(x_end - rr), num(y + t), num(x_left));
        std::string tip = b.tip.empty() ? fmt::format("{}: {} {}", b.label, f(b.value), c.unit) : b.tip;
        o += fmt::format(R"(<path class="bar s1" d="{}" tabindex="0" data-tip="{}"/>)", d, escape_html(tip));
        o += fmt::format(R"(<text class="lab" x="{}" y="{}" text-anchor="end" dominant-baseline="middle">{}</text>)",
                         num(x_left - 10), num(y + t / 2), escape_html(b.label));
        o += fmt::format(R"(<text class="val" x="{}" y="{}" dominant-baseline="middle">{}</text>)", num(x_end + 8),
                         num(y + t / 2), escape_html(f(b.value)));
    }
    o += "</svg>";
    return o;
}

std::vector<std::size_t> keep_indices(const std::vector<double>& xs,
                                      const std::vector<const std::vector<std::optional<double>>*>& series,
                                      std::size_t columns) {
    const std::size_t n = xs.size();
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    const std::size_t per_column = 2 + 2 * series.size();
    if (columns == 0 || n <= columns * per_column) return all;
    const double x0 = xs.front(), x1 = xs.back();
    if (!(x1 > x0)) return {0, n - 1};
    std::vector<std::size_t> keep;
    keep.reserve(columns * per_column);
    std::size_t i = 0;
    while (i < n) {
        auto col = static_cast<std::size_t>(std::min<double>(
            static_cast<double>(columns - 1), std::floor((xs[i] - x0) / (x1 - x0) * static_cast<double>(columns))));
        std::size_t j = i;
        std::vector<std::size_t> picks{i};
        std::vector<std::optional<std::size_t>> lo(series.size()), hi(series.size());
        std::vector<int> breaks(series.size(), 0);
        while (j < n) {
            auto cj = static_cast<std::size_t>(std::min<double>(
                static_cast<double>(columns - 1), std::floor((xs[j] - x0) / (x1 - x0) * static_cast<double>(columns))));
            if (cj != col) break;
            for (std::size_t s = 0; s < series.size(); ++s) {
                const auto& y = (*series[s])[j];
                // Keep where a line breaks or resumes (twice a column at most), so a gap stays a gap.
                if (j > 0 && y.has_value() != (*series[s])[j - 1].has_value() && breaks[s] < 2) {
                    picks.push_back(j - 1);
                    picks.push_back(j);
                    ++breaks[s];
                }
                if (!y) continue;
                if (!lo[s] || *y < *(*series[s])[*lo[s]]) lo[s] = j;
                if (!hi[s] || *y > *(*series[s])[*hi[s]]) hi[s] = j;
            }
            ++j;
        }
        picks.push_back(j - 1);
        for (std::size_t s = 0; s < series.size(); ++s) {
            if (lo[s]) picks.push_back(*lo[s]);
            if (hi[s]) picks.push_back(*hi[s]);
        }
        std::sort(picks.begin(), picks.end());
        picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
        keep.insert(keep.end(), picks.begin(), picks.end());
        i = j;
    }
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    return keep;
}

}  // namespace inferlint::report::svg
