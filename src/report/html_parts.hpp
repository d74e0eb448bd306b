// Pieces the report's sections share: number formats as the page writes them, tables,
// figures, status pills. Internal to src/report.
#pragma once

#include "inferlint/core/result.hpp"
#include "inferlint/parse/bootlog.hpp"
#include "inferlint/report/report.hpp"
#include "inferlint/report/svgchart.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace inferlint::report::html {

using svg::escape_html;
using svg::grouped;

inline constexpr std::string_view kDash = "\u2013";  // shown for a value that is absent

// "1,234" / "1,234.5"; the dash when absent.
std::string fmt_n(std::optional<double> v, int digits = 0);
// "45.2 s" under a minute, else "1 min 34 s".
std::string dur(double s);
// "641 ms" under a second, else "22.1 s".
std::string ms(double v);
// "2026-09-27 00:50:52 to 00:52:25 (UTC+0)" in local time.
std::string clock_span(double start, double end);

// The whole document (page.cpp): the head, the top bar with the mark, the light/dark
// switch and the escaped title, then meta_html and note_html (already escaped), the
// sections, the footer (already escaped) and the page's script.
std::string page(std::string_view title, std::string_view meta_html, std::string_view note_html,
                 std::string_view sections_html, std::string_view footer_html);

// A table whose every cell is escaped text.
std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows);
// A chart figure: caption_html is already escaped.
std::string figure(std::string_view id, std::string_view title, std::string_view caption_html, std::string_view svg,
                   std::string_view legend, std::string_view table);

enum class Key { line, ref, event };
std::string legend(const std::vector<std::tuple<Key, std::string, std::string>>& items);

std::string_view status_word(Status s);  // "Tripwire failed", "Warning", ...
std::string pill(Status s);
int status_rank(Status s);           // fail first, does-not-apply last
int tripwire_number(TripwireId id);  // TripwireId::T12 -> 12

// Reference text (report_words.cpp): the words the page uses, what each result means,
// and why a tripwire has no result ("need a boot log"; plural verb).
std::string terms_glossary(const Engine& engine);
std::string status_glossary();
std::string_view needs(TripwireId tripwire);
std::string_view finish_reason_words(std::string_view reason);

// The sections (report_story.cpp): what happened, with its tiles and facts.
std::string happened_section(const Report& rep);
std::string story(const Report& rep);

// The chart sections (report_charts.cpp).
std::string cache_chart(const Report& rep);
std::string run_charts(const Report& rep);
std::string pools_chart(const Report& rep);
std::string memory_chart(const parse::BootFacts& f);
std::string tput_note(const Report& rep);
// The replica table and a chart per replica, for a fleet's page ("" when not a fleet).
std::string fleet_section(const Report& rep);

// Most points a time chart draws: min and max per pixel column of a 290-column plot.
inline constexpr std::size_t kChartColumns = 290;

}  // namespace inferlint::report::html
