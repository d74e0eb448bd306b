// The one signal guard watch and xray install: it records, forgets, and gives back.
#include "inferlint/util/signals.hpp"

#include <catch2/catch.hpp>

#include <csignal>

using namespace inferlint;

namespace {

extern "C" void signals_test_handler(int) {}

void (*handler_of(int sig))(int) {
    struct sigaction now {};
    sigaction(sig, nullptr, &now);
    return now.sa_handler;
}

}  // namespace

TEST_CASE("SignalGuard: a signal is recorded, not acted on, and the old handler comes back", "[signals]") {
    struct sigaction mine {
    }, before{};
    mine.sa_handler = signals_test_handler;
    sigemptyset(&mine.sa_mask);
    sigaction(SIGTERM, &mine, &before);
    {
        util::SignalGuard guard({SIGINT, SIGTERM}, util::BrokenPipe::keep);
        CHECK(util::caught_signal() == 0);
        CHECK_FALSE(util::signal_caught().load());
        std::raise(SIGTERM);
        CHECK(util::caught_signal() == SIGTERM);
        CHECK(util::signal_caught().load());
    }
    CHECK(handler_of(SIGTERM) == signals_test_handler);
    {
        util::SignalGuard again({SIGTERM}, util::BrokenPipe::keep);
        CHECK(util::caught_signal() == 0);  // what an earlier guard caught is forgotten
        CHECK_FALSE(util::signal_caught().load());
    }
    sigaction(SIGTERM, &before, nullptr);
}

TEST_CASE("SignalGuard: SIGPIPE ignored only when asked, and given back", "[signals]") {
    const auto pipe_before = handler_of(SIGPIPE);
    {
        util::SignalGuard keep({SIGHUP}, util::BrokenPipe::keep);
        CHECK(handler_of(SIGPIPE) == pipe_before);
    }
    {
        util::SignalGuard ignore({SIGHUP}, util::BrokenPipe::ignore);
        CHECK(handler_of(SIGPIPE) == SIG_IGN);
        std::raise(SIGPIPE);  // would end the test binary if it were not ignored
        CHECK(util::caught_signal() == 0);
    }
    CHECK(handler_of(SIGPIPE) == pipe_before);
}
