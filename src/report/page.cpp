// The page's frame, which every inferlint page shares: the document head (no request
// leaves it), the top bar with the mark and the light/dark switch, the footer, the script.
#include "html_parts.hpp"
#include "inferlint/util/url.hpp"

#include "inferlint_assets.inc"

#include <fmt/format.h>

#include <cctype>

namespace inferlint::report::html {

namespace {

// The mark: a taut wire with a spark where it trips, on a warm tile.
constexpr std::string_view kLogo =
    R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">)"
    R"(<rect width="32" height="32" rx="7" fill="#f4a62a"/>)"
    R"(<path d="M3 21h9l3-4 3 4h11" fill="none" stroke="#1b1510" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/>)"
    R"(<circle cx="15" cy="10" r="3.2" fill="#1b1510"/></svg>)";

// Percent-encodes what a data: URL may not carry bare.
std::string page_data_url(std::string_view svg) {
    return "data:image/svg+xml," + util::percent_encode(svg, "-_.~ =:/,");
}

// Before the first paint, so the page never flashes the other theme: the reader's remembered
// choice, else the system's setting (the style sheet's dark tokens follow data-theme alone).
constexpr std::string_view kThemeBoot =
    "<script>(function(){var t;try{t=localStorage.getItem('inferlint-theme')}catch(e){}"
    "if(t!=='light'&&t!=='dark')t=window.matchMedia&&matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light';"
    "document.documentElement.setAttribute('data-theme',t)})()</script>";

constexpr std::string_view kThemeToggle =
    R"(<button type="button" class="icon-btn" data-theme-toggle aria-label="Switch between light and dark">)"
    R"(<svg class="ico-moon" viewBox="0 0 24 24" aria-hidden="true"><path d="M20 14.5A8.5 8.5 0 0 1 9.5 4a8.5 8.5 0 1 0 10.5 10.5z"/></svg>)"
    R"(<svg class="ico-sun" viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="4.2"/>)"
    R"(<path d="M12 2.5v2.2M12 19.3v2.2M4.2 4.2l1.6 1.6M18.2 18.2l1.6 1.6M2.5 12h2.2M19.3 12h2.2M4.2 19.8l1.6-1.6M18.2 5.8l1.6-1.6"/></svg>)"
    R"(</button>)";

}  // namespace

std::string page(std::string_view title, std::string_view meta_html, std::string_view note_html,
                 std::string_view sections_html, std::string_view footer_html) {
    std::string logo(kLogo);
    logo.replace(0, 5, "<svg class=\"logo\" aria-hidden=\"true\"");
    std::string body;
    body.reserve(sections_html.size() + (1 << 14));
    body += "<div class=\"page\"><header class=\"top\"><div class=\"topbar\"><div class=\"brand\">" + logo +
            "inferlint</div>" + std::string(kThemeToggle) + "</div><h1>" + escape_html(title) +
            "</h1><p class=\"meta\">" + std::string(meta_html) + "</p>" + std::string(note_html) + "</header>";
    body += sections_html;
    body += "<footer>" + std::string(footer_html) + "</footer></div>";
    body += "<div class=\"tt\" role=\"status\" hidden></div>";
    body += std::string("<script>") + asset_report_js + "</script>";

    return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1, viewport-fit=cover\">"
           // Nothing leaves the page, even if something slipped past the escaping.
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "script-src 'unsafe-inline'; img-src data:\">"
           "<link rel=\"icon\" href=\"" +
           escape_html(page_data_url(kLogo)) + "\"><title>" + escape_html(title) + "</title>" +
           std::string(kThemeBoot) + "<style>" + asset_report_css + "</style></head><body>" + body + "</body></html>";
}

}  // namespace inferlint::report::html
