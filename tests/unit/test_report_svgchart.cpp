#include "support.hpp"

#include "inferlint/report/svgchart.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <regex>

using namespace inferlint::report::svg;

namespace {

TimeChart chart(std::vector<Line> lines = {{"running", {1.0, 2.0, std::nullopt, 4.0}}}) {
    TimeChart c;
    c.id = "t";
    c.xs = {0.0, 1.0, 2.0, 3.0};
    c.lines = std::move(lines);
    c.y_unit = "req";
    return c;
}

// The d attribute of each mark path, in order.
std::vector<std::string> mark_paths(const std::string& svg) {
    std::vector<std::string> out;
    std::regex re(R"re(class="mark[^"]*" d="([^"]*)")re");
    for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) out.push_back((*it)[1]);
    return out;
}

}  // namespace

TEST_CASE("svgchart: ticks are round steps covering the range", "[report][svgchart]") {
    CHECK(nice_ticks(0, 32) == std::vector<double>{0, 10, 20, 30, 40});
    CHECK(nice_ticks(0, 100) == std::vector<double>{0, 25, 50, 75, 100});
    CHECK(nice_ticks(0, 10) == std::vector<double>{0, 2.5, 5, 7.5, 10});
    CHECK(nice_ticks(0, 0.93) == std::vector<double>{0, 0.25, 0.5, 0.75, 1.0});
    CHECK(nice_ticks(0, 93.7) == std::vector<double>{0, 25, 50, 75, 100});
    CHECK(nice_ticks(5, 5) == std::vector<double>{5, 5.25, 5.5, 5.75, 6});
    for (double hi : {0.3, 7.0, 42.0, 341.44, 21768.0, 1e6 + 3}) {
        auto t = nice_ticks(0, hi);
        CHECK(t.front() <= 0);
        CHECK(t.back() >= hi);
        CHECK(t.size() <= 7);
    }
    CHECK_THROWS_AS(nice_ticks(0, std::nan("")), std::invalid_argument);
}

TEST_CASE("svgchart: scales map linearly, inverted for y", "[report][svgchart]") {
    Scale s{0, 10, 100, 200};
    CHECK(s(0) == 100);
    CHECK(s(5) == 150);
    CHECK(s(10) == 200);
    CHECK(Scale{0, 10, 200, 100}(10) == 100);
    CHECK(Scale{3, 3, 0, 10}(3) == 5);
}

TEST_CASE("svgchart: numbers and separators as the page writes them", "[report][svgchart]") {
    CHECK(num(1.0) == "1");
    CHECK(num(1.005) == "1");  // two decimals at most: 1.00 -> 1 (binary 1.005 is below 1.005)
    CHECK(num(12.345678) == "12.35");
    CHECK(num(-0.001) == "0");
    CHECK(grouped(32000) == "32,000");
    CHECK(grouped(1234567.891, 1) == "1,234,567.9");
    CHECK(grouped(-1234.5, 0) == "-1,234");
    CHECK(grouped(999) == "999");
    CHECK(escape_html(R"(<a href="x">'&'</a>)") == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;");
}

TEST_CASE("svgchart: a gap breaks the line and is never bridged", "[report][svgchart]") {
    auto d = mark_paths(render_time(chart()));
    REQUIRE(d.size() == 1);
    CHECK(std::count(d[0].begin(), d[0].end(), 'M') == 2);
}

TEST_CASE("svgchart: a step line goes across, then up or down", "[report][svgchart]") {
    auto d = mark_paths(render_time(chart({{"fits", {3.0, 3.0, 2.0, 2.0}, "s3", LineKind::step}})));
    REQUIRE(d.size() == 1);
    CHECK(d[0].find('H') != std::string::npos);
    CHECK(d[0].find('V') != std::string::npos);
    CHECK(d[0].find('L') == std::string::npos);
}

TEST_CASE("svgchart: every mark lies inside the plot", "[report][svgchart]") {
    TimeChart c = chart({{"a", {0.0, 5.0, 9.0, 3.0}}, {"b", {2.0, 2.0, 2.0, 2.0}, "s2"}});
    std::string svg = render_time(c);
    std::vector<double> nums;
    std::regex number(R"(-?\d+(?:\.\d+)?)");
    for (const auto& d : mark_paths(svg))
        for (std::sregex_iterator it(d.begin(), d.end(), number), end; it != end; ++it)
            nums.push_back(std::stod(it->str()));
    REQUIRE(nums.size() == 16);
    for (std::size_t i = 0; i < nums.size(); i += 2) {
        CHECK(nums[i] >= kMarginLeft);
        CHECK(nums[i] <= c.width - kMarginRight);
        CHECK(nums[i + 1] >= kMarginTop);
        CHECK(nums[i + 1] <= c.height - kMarginBottom);
    }
}

TEST_CASE("svgchart: labels are escaped and the data cannot close its script", "[report][svgchart]") {
    TimeChart c = chart({{"</script><script>alert(1)</script>", {1.0, 2.0, 3.0, 4.0}}});
    c.refs = {{2.0, "x\"><b>"}};
    c.events = {{1.0, "<img src=x onerror=alert(1)>"}};
    std::string html = render_time(c);
    const std::string open = R"(<script type="application/json" class="chart-data">)";
    auto at = html.find(open);
    REQUIRE(at != std::string::npos);
    std::string svg = html.substr(0, at);
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(svg.find("<img") == std::string::npos);
    CHECK(svg.find("x\"><b>") == std::string::npos);
    CHECK(svg.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
    std::string inner = html.substr(at + open.size());
    REQUIRE(inner.size() > 9);
    inner.resize(inner.size() - std::string("</script>").size());
    CHECK(inner.find("</") == std::string::npos);
    std::string restored = std::regex_replace(inner, std::regex(R"(<\\/)"), "</");
    auto data = nlohmann::json::parse(restored);
    CHECK(data["series"][0]["label"] == "</script><script>alert(1)</script>");
    CHECK(data["series"][0]["ys"] == nlohmann::json::array({1.0, 2.0, 3.0, 4.0}));
}

TEST_CASE("svgchart: events become markers with their labels", "[report][svgchart]") {
    TimeChart c = chart();
    c.events = {{1.0, "2 preemptions"}, {3.0, "1 preemption"}};
    std::string html = render_time(c);
    std::regex ev(R"(class="ev")");
    CHECK(std::distance(std::sregex_iterator(html.begin(), html.end(), ev), std::sregex_iterator()) == 2);
    CHECK(html.find("<title>2 preemptions</title>") != std::string::npos);
}

TEST_CASE("svgchart: bad charts are refused", "[report][svgchart]") {
    CHECK_THROWS_WITH(render_time(chart({{"a", {1.0}}})), Catch::Contains("values for"));
    TimeChart empty;
    CHECK_THROWS_AS(render_time(empty), std::invalid_argument);
    BarChart none;
    CHECK_THROWS_AS(render_bars(none), std::invalid_argument);
}

TEST_CASE("svgchart: the data changes the picture", "[report][svgchart]") {
    CHECK(render_time(chart({{"a", {1.0, 2.0, 3.0, 4.0}}})) != render_time(chart({{"a", {1.0, 2.0, 3.0, 1.0}}})));
}

TEST_CASE("svgchart: bars are proportional, square at the baseline, round at the end", "[report][svgchart]") {
    BarChart c;
    c.bars = {{"10 running", 30.0}, {"7 running", 15.0}};
    c.unit = "s";
    std::string html = render_bars(c);
    std::regex re(R"re(class="bar s1" d="([^"]+)")re");
    std::vector<std::string> ds;
    for (std::sregex_iterator it(html.begin(), html.end(), re), end; it != end; ++it) ds.push_back((*it)[1]);
    REQUIRE(ds.size() == 2);
    std::regex arc(R"(A[\d.]+ [\d.]+ 0 0 1 ([\d.]+))");
    std::vector<double> ends;
    for (const auto& d : ds) {
        std::smatch m;
        REQUIRE(std::regex_search(d, m, arc));
        ends.push_back(std::stod(m[1]));
        CHECK(d.rfind("M120 ", 0) == 0);
        CHECK(d.size() > 5);
        CHECK(d.substr(d.size() - 5) == "H120Z");
    }
    CHECK(ends[0] - 120 == Approx(2 * (ends[1] - 120)).margin(0.02));
    CHECK(html.find("data-tip=\"10 running: 30.0 s\"") != std::string::npos);
}

TEST_CASE("svgchart: a long recording is thinned without losing its peaks", "[report][svgchart]") {
    const std::size_t n = 1'000'000;
    std::vector<double> xs(n);
    std::vector<std::optional<double>> ys(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = static_cast<double>(i) * 0.01;
        ys[i] = static_cast<double>(i % 7);
    }
    ys[123'457] = 1000.0;        // one spike
    ys[654'321] = -5.0;          // one dip
    ys[800'000] = std::nullopt;  // one gap
    auto keep = keep_indices(xs, {&ys}, 290);
    CHECK(keep.size() <= 290 * 8);
    CHECK(keep.size() > 290);
    CHECK(std::is_sorted(keep.begin(), keep.end()));
    CHECK(keep.front() == 0);
    CHECK(keep.back() == n - 1);
    CHECK(std::binary_search(keep.begin(), keep.end(), 123'457));
    CHECK(std::binary_search(keep.begin(), keep.end(), 654'321));
    CHECK(std::binary_search(keep.begin(), keep.end(), 800'000));
    // few samples: every one kept
    std::vector<double> few{0, 1, 2};
    std::vector<std::optional<double>> fy{1, 2, 3};
    CHECK(keep_indices(few, {&fy}, 290).size() == 3);
}
