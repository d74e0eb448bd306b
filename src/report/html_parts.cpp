#include "html_parts.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

namespace inferlint::report::html {

std::string fmt_n(std::optional<double> v, int digits) {
    if (!v) return std::string(kDash);
    return grouped(*v, digits);
}

std::string dur(double s) {
    if (s < 60) return fmt::format("{:.1f} s", s);
    auto total = static_cast<long long>(std::nearbyint(s));
    return fmt::format("{} min {} s", total / 60, total % 60);
}

std::string ms(double v) { return v >= 1000 ? grouped(v / 1000, 1) + " s" : grouped(v, 0) + " ms"; }

std::string clock_span(double start, double end) {
    auto local = [](double t) {
        std::time_t secs = static_cast<std::time_t>(std::floor(t));
        std::tm tm{};
        localtime_r(&secs, &tm);
        return tm;
    };
    std::tm a = local(start), b = local(end);
    long mins = a.tm_gmtoff >= 0 ? a.tm_gmtoff / 60 : -((-a.tm_gmtoff + 59) / 60);
    char sign = mins >= 0 ? '+' : '-';
    long h = std::labs(mins) / 60, m = std::labs(mins) % 60;
    std::string zone = fmt::format("UTC{}{}", sign, h) + (m ? fmt::format(":{:02d}", m) : "");
    char da[32], db[16];
    std::strftime(da, sizeof da, "%Y-%m-%d %H:%M:%S", &a);
    std::strftime(db, sizeof db, "%H:%M:%S", &b);
    return fmt::format("{} to {} ({})", da, db, zone);
}

std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
    std::string out = "<div class=\"tablewrap\"><table><thead><tr>";
    for (const auto& h : head) out += "<th scope=\"col\">" + escape_html(h) + "</th>";
    out += "</tr></thead><tbody>";
    for (const auto& row : rows) {
        out += "<tr>";
        for (const auto& c : row) out += "<td>" + escape_html(c) + "</td>";
        out += "</tr>";
    }
    out += "</tbody></table></div>";
    return out;
}

std::string figure(std::string_view id, std::string_view title, std::string_view caption_html, std::string_view svg,
                   std::string_view legend, std::string_view table) {
    return fmt::format(
        "<figure class=\"chart\" id=\"{}\" data-chart><figcaption><h3>{}</h3><p>{}</p></figcaption>{}"
        "<div class=\"plot\">{}</div><details><summary>Data table</summary>{}</details></figure>",
        escape_html(id), escape_html(title), caption_html, legend, svg, table);
}

std::string legend(const std::vector<std::tuple<Key, std::string, std::string>>& items) {
    std::string out = "<ul class=\"legend\">";
    for (const auto& [kind, cls, label] : items) {
        std::string key;
        switch (kind) {
            case Key::event:
                key = R"(<svg viewBox="0 0 12 10" aria-hidden="true"><path class="ev" d="M1 1H11L6 9Z"/></svg>)";
                break;
            case Key::ref:
                key =
                    R"(<svg viewBox="0 0 18 10" aria-hidden="true"><line class="ref" x1="0" x2="18" y1="5" y2="5"/></svg>)";
                break;
            case Key::line:
                key = fmt::format(
                    R"(<svg viewBox="0 0 18 10" aria-hidden="true"><line class="mark {}" x1="1" x2="17" y1="5" y2="5"/></svg>)",
                    escape_html(cls));
                break;
        }
        out += "<li>" + key + escape_html(label) + "</li>";
    }
    return out + "</ul>";
}

std::string_view status_word(Status s) {
    switch (s) {
        case Status::fail:
            return "Tripwire failed";
        case Status::warn:
            return "Warning";
        case Status::unknown:
            return "Can't tell";
        case Status::pass:
            return "Pass";
        case Status::not_applicable:
            return "Does not apply";
    }
    return "Can't tell";
}

namespace {
// Glyphs, not colour alone, tell the statuses apart.
std::string_view icon(Status s) {
    switch (s) {
        case Status::pass:
            return R"(<path d="M3.5 8.5l3 3 6-7"/>)";
        case Status::warn:
            return R"(<path d="M8 3.5v6M8 12.2v.3"/>)";
        case Status::fail:
            return R"(<path d="M4.5 4.5l7 7M11.5 4.5l-7 7"/>)";
        case Status::unknown:
            return R"(<path d="M6 6a2 2 0 1 1 2.6 1.9c-.4.2-.6.5-.6 1v.6M8 12.2v.3"/>)";
        case Status::not_applicable:
            return R"(<path d="M4.5 8h7"/>)";
    }
    return "";
}
}  // namespace

std::string pill(Status s) {
    return fmt::format(R"(<span class="pill {}"><svg viewBox="0 0 16 16" aria-hidden="true">{}</svg>{}</span>)",
                       status_value(s), icon(s), status_word(s));  // constants: nothing to escape
}

int status_rank(Status s) {
    switch (s) {
        case Status::fail:
            return 0;
        case Status::warn:
            return 1;
        case Status::unknown:
            return 2;
        case Status::pass:
            return 3;
        case Status::not_applicable:
            return 4;
    }
    return 2;
}

int tripwire_number(TripwireId id) { return static_cast<int>(id); }

}  // namespace inferlint::report::html
