// Catching signals for a while: the handler only records the signal, and the loops that
// wait (watch's sampling, xray's run) read it and end in order.
#pragma once

#include <atomic>
#include <initializer_list>
#include <memory>

namespace inferlint::util {

enum class BrokenPipe {
    keep,    // SIGPIPE as it was
    ignore,  // ignored, so a closed stdout cannot kill the process before it cleans up
};

// Catches each of `signals` while it lives: the handler records the signal (caught_signal(),
// signal_caught()) and nothing else. What was caught before is forgotten when it is made;
// the old handlers come back when it goes. One at a time.
class SignalGuard {
public:
    SignalGuard(std::initializer_list<int> signals, BrokenPipe pipe);
    ~SignalGuard();
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

private:
    struct Saved;
    std::unique_ptr<Saved> saved_;
};

// The last signal a SignalGuard caught; 0 if none.
int caught_signal();
// The same as a flag, for loops that take a stop flag (run::watch).
const std::atomic<bool>& signal_caught();

}  // namespace inferlint::util
