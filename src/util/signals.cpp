#include "inferlint/util/signals.hpp"

#include <csignal>
#include <utility>
#include <vector>

namespace inferlint::util {

namespace {

std::atomic<int> g_caught_signal{0};
std::atomic<bool> g_signal_caught{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the signal handler sets them");

extern "C" void record_signal(int sig) {
    g_caught_signal.store(sig);
    g_signal_caught.store(true);
}

}  // namespace

struct SignalGuard::Saved {
    std::vector<std::pair<int, struct sigaction>> old;  // made before any handler is installed
};

SignalGuard::SignalGuard(std::initializer_list<int> signals, BrokenPipe pipe) : saved_(std::make_unique<Saved>()) {
    saved_->old.reserve(signals.size() + 1);
    g_caught_signal.store(0);
    g_signal_caught.store(false);
    struct sigaction sa {};
    sa.sa_handler = record_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : signals) {
        struct sigaction old {};
        sigaction(sig, &sa, &old);
        saved_->old.emplace_back(sig, old);
    }
    if (pipe == BrokenPipe::ignore) {
        struct sigaction ign {};
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        struct sigaction old {};
        sigaction(SIGPIPE, &ign, &old);
        saved_->old.emplace_back(SIGPIPE, old);
    }
}

SignalGuard::~SignalGuard() {
    for (const auto& [sig, old] : saved_->old) sigaction(sig, &old, nullptr);
}

int caught_signal() { return g_caught_signal.load(); }

const std::atomic<bool>& signal_caught() { return g_signal_caught; }

}  // namespace inferlint::util
