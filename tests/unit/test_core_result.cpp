#include "inferlint/core/result.hpp"

#include <catch2/catch.hpp>

using namespace inferlint;

TEST_CASE("status labels and values match the Python tool", "[result]") {
    CHECK(status_label(Status::fail) == "TRIPWIRE-FAILED");
    CHECK(status_label(Status::unknown) == "????");
    CHECK(status_label(Status::not_applicable) == "N/A");
    CHECK(status_value(Status::not_applicable) == "not_applicable");
}

TEST_CASE("terminal line right-aligns the tripwire id in 3", "[result]") {
    CheckResult r{TripwireId::T1, Status::fail, "22 preemptions during the run", Json::object()};
    CHECK(terminal_line(r) == "[ T1] TRIPWIRE-FAILED  22 preemptions during the run");
    r.tripwire = TripwireId::T14;
    r.status = Status::pass;
    CHECK(terminal_line(r) == "[T14] PASS  22 preemptions during the run");
}

TEST_CASE("exit code: fail beats unknown, strict turns warn into 1, N/A never counts", "[result]") {
    auto r = [](Status s) { return CheckResult{TripwireId::T1, s, "", Json::object()}; };
    CHECK(exit_code({r(Status::pass), r(Status::warn)}, Strict::no) == 0);
    CHECK(exit_code({r(Status::pass), r(Status::warn)}, Strict::yes) == 1);
    CHECK(exit_code({r(Status::unknown), r(Status::fail)}, Strict::no) == 1);
    CHECK(exit_code({r(Status::unknown), r(Status::pass)}, Strict::no) == 2);
    CHECK(exit_code({r(Status::not_applicable)}, Strict::yes) == 0);
    CHECK(exit_code({}, Strict::no) == 0);
}

TEST_CASE("counts summary names each status and what does not apply", "[result]") {
    auto r = [](Status s) { return CheckResult{TripwireId::T1, s, "", Json::object()}; };
    CHECK(counts_summary({r(Status::pass), r(Status::pass), r(Status::fail), r(Status::not_applicable)}) ==
          "3 checks (2 pass, 1 tripwire-failed); 1 does not apply");
    CHECK(counts_summary({r(Status::unknown)}) == "1 checks (1 unknown)");
}
