#include "inferlint/util/error.hpp"
#include "inferlint/util/url.hpp"

#include "support.hpp"

#include <string>

using inferlint::InputError;
using inferlint::util::BaseUrl;
using inferlint::util::normalise_base_url;
using inferlint::util::parse_base_url;

namespace {

// The one-line InputError that reading `text` as an address gives.
std::string url_error_of(const std::string& text) {
    try {
        parse_base_url(text);
    } catch (const InputError& e) {
        std::string what = e.what();
        CHECK(what.find('\n') == std::string::npos);
        return what;
    }
    FAIL("no InputError for '" << text << "'");
    return "";
}

}  // namespace

TEST_CASE("url: host:port as users type it names the server at http://host:port", "[url]") {
    BaseUrl b = parse_base_url("127.0.0.1:8000");
    CHECK(b.host == "127.0.0.1");
    CHECK(b.port == 8000);
    CHECK(b.prefix == "");
    CHECK(b.str() == "http://127.0.0.1:8000");
    CHECK(parse_base_url("  localhost:8000/ \n").str() == "http://localhost:8000");
}

TEST_CASE("url: an address without a port is port 80", "[url]") {
    BaseUrl b = parse_base_url("http://example.internal");
    CHECK(b.host == "example.internal");
    CHECK(b.port == 80);
    CHECK(b.str() == "http://example.internal:80");
}

TEST_CASE("url: the endpoints users paste are dropped, so the server is what is named", "[url]") {
    for (const char* text :
         {"http://h:8000/metrics", "http://h:8000/v1", "http://h:8000/v1/models", "http://h:8000/v1/completions",
          "http://h:8000/health", "http://h:8000/version", "http://h:8000/prometheus/metrics", "http://h:8000/metrics/",
          "http://h:8000/metrics?x=1", "http://h:8000/#top"}) {
        INFO(text);
        CHECK(normalise_base_url(text) == "http://h:8000");
    }
}

TEST_CASE("url: a reverse proxy's mount point is kept as the prefix, without a trailing slash", "[url]") {
    BaseUrl b = parse_base_url("http://gw:9000/proxy/vllm/metrics");
    CHECK(b.host == "gw");
    CHECK(b.port == 9000);
    CHECK(b.prefix == "/proxy/vllm");
    CHECK(b.str() == "http://gw:9000/proxy/vllm");
    CHECK(b.at("/metrics") == "http://gw:9000/proxy/vllm/metrics");
    CHECK(parse_base_url("gw:9000/proxy/").prefix == "/proxy");
}

TEST_CASE("url: at() joins a path with or without its leading slash", "[url]") {
    BaseUrl b = parse_base_url("127.0.0.1:30000");
    CHECK(b.at("/metrics") == "http://127.0.0.1:30000/metrics");
    CHECK(b.at("v1/models") == "http://127.0.0.1:30000/v1/models");
    CHECK(b.at("") == "http://127.0.0.1:30000/");
}

TEST_CASE("url: the scheme is read in any case; the host is kept as written", "[url]") {
    BaseUrl b = parse_base_url("HTTP://MyHost:8001");
    CHECK(b.host == "MyHost");
    CHECK(b.port == 8001);
}

TEST_CASE("url: an IPv6 address is written in brackets and read back", "[url]") {
    BaseUrl b = parse_base_url("http://[::1]:8000/metrics");
    CHECK(b.host == "::1");
    CHECK(b.port == 8000);
    CHECK(b.str() == "http://[::1]:8000");
    CHECK(parse_base_url("[fe80::1]").port == 80);
    CHECK(url_error_of("[::1:8000").find("unbalanced '['") != std::string::npos);
    CHECK(url_error_of("[::1]8000") == "[::1]8000: cannot read the address");
}

TEST_CASE("url: https names its scheme and port 443 unless given; other schemes are refused", "[url][badinput]") {
    BaseUrl b = parse_base_url("https://h:8443/metrics");
    CHECK(b.https());
    CHECK(b.port == 8443);
    CHECK(b.str() == "https://h:8443");
    CHECK(parse_base_url("HTTPS://h/v1").str() == "https://h:443");
    CHECK_FALSE(parse_base_url("h:8000").https());
    CHECK(url_error_of("ftp://h:21").starts_with("ftp://h:21: not an http or https address"));
}

TEST_CASE("url: no address, no host or a bad port is one line naming what was typed", "[url][badinput]") {
    CHECK(url_error_of("").starts_with("no server address given"));
    CHECK(url_error_of("   ").starts_with("no server address given"));
    CHECK(url_error_of(":8000") == ":8000: no host in the address");
    CHECK(url_error_of("http:///metrics") == "http:///metrics: no host in the address");
    CHECK(url_error_of("h:abc") == "h:abc: 'abc' is not a port number");
    CHECK(url_error_of("h:0") == "h:0: '0' is not a port number");
    CHECK(url_error_of("h:65536") == "h:65536: '65536' is not a port number");
    const std::string huge = "h:99999999999999999999";
    CHECK(url_error_of(huge) == huge + ": '99999999999999999999' is not a port number");
    CHECK(parse_base_url("h:65535").port == 65535);
}
