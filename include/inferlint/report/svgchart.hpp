// Small SVG charts drawn by hand (port of svgchart.py): a time chart of several lines on
// one y scale with reference lines and event markers, and a horizontal bar chart.
//
// Every coordinate comes from one pair of linear scales, so marks, ticks and labels agree.
// No colour is written into the SVG: marks carry a class (s1..s3, ev) that the page's
// stylesheet maps to the theme, so one chart reads in light and dark. Labels are data and
// are always escaped.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferlint::report::svg {

using Fmt = std::function<std::string(double)>;

// &, <, >, " and ' as entities: safe in element text and in quoted attributes.
std::string escape_html(std::string_view text);

// Compact SVG number: at most two decimals, no trailing zeros, never "-0".
std::string num(double v);

// Round tick values covering [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of ten.
// Throws std::invalid_argument for a bound that is not finite.
std::vector<double> nice_ticks(double lo, double hi, int count = 5);

struct Scale {
    double d0, d1, r0, r1;
    double operator()(double v) const {
        if (d1 == d0) return (r0 + r1) / 2;
        return r0 + (v - d0) / (d1 - d0) * (r1 - r0);
    }
};

enum class LineKind { line, step, area };

struct Line {
    std::string label;
    std::vector<std::optional<double>> ys;  // nullopt breaks the line; a gap is never bridged
    std::string cls = "s1";                 // s1..s3: the colour slot the page assigns
    LineKind kind = LineKind::line;
};

struct RefLine {
    double y = 0.0;
    std::string label;
};

struct Event {
    double x = 0.0;
    std::string label;
};

struct TimeChart {
    std::string id;
    std::vector<double> xs;
    std::vector<Line> lines;
    std::string y_unit;
    std::string x_unit = "s";
    std::optional<double> y_max;
    Fmt y_fmt;  // default: whole numbers with thousands separators
    std::vector<RefLine> refs;
    std::vector<Event> events;
    std::string event_label = "event";
    std::string aria;
    int width = 720;
    int height = 250;
};

// Plot margins in viewBox units; the right one holds the direct end labels.
inline constexpr int kMarginLeft = 48;
inline constexpr int kMarginRight = 92;
inline constexpr int kMarginTop = 18;
inline constexpr int kMarginBottom = 34;

// The chart's SVG followed by a <script type="application/json" class="chart-data"> the
// page's script reads for hover and arrow keys. Throws std::invalid_argument when there
// are no xs or a line's length differs from the xs.
std::string render_time(const TimeChart& chart);

struct Bar {
    std::string label;
    double value = 0.0;
    std::string tip;  // default: "label: value unit"
};

struct BarChart {
    std::string id;
    std::vector<Bar> bars;
    std::string unit;
    Fmt fmt;       // value labels; default one decimal with separators
    Fmt tick_fmt;  // default: whole numbers bare, others one decimal
    std::string aria;
    int width = 720;
    int thickness = 18;
    int gap = 12;
    int label_width = 120;
};

// Horizontal bars from one baseline. Throws std::invalid_argument for no bars.
std::string render_bars(const BarChart& chart);

// Which samples a chart `columns` pixels wide needs so that nothing visible is lost: per
// column the first and last sample, and each series' lowest and highest, so peaks and
// short dips survive. Ascending indices; every index when there are few enough samples.
std::vector<std::size_t> keep_indices(const std::vector<double>& xs,
                                      const std::vector<const std::vector<std::optional<double>>*>& series,
                                      std::size_t columns);

// Thousands-separated fixed-point, as Python's f"{v:,.{digits}f}".
std::string grouped(double v, int digits = 0);

}  // namespace inferlint::report::svg
