// The two processes of a simulated vLLM server: the API server (this process: HTTP,
// /metrics, the access log) and its EngineCore child (the scheduler), sharing the engine
// state through shared memory.
#include "serve.hpp"

#include "engine.hpp"
#include "http_api.hpp"
#include "log.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace sim {
namespace {

volatile std::sig_atomic_t g_core_stop = 0;
volatile std::sig_atomic_t g_core_signal = 0;

extern "C" void core_on_signal(int sig) {
    g_core_stop = 1;
    g_core_signal = sig;
}

void sleep_s(double s) {
    if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// The engine's steps keep its model's pace: each is due one step after the last one was, so
// a late wake-up (a loaded machine's scheduler) is made up by the steps after it instead of
// adding up over a run. At most kMaxLateS of lateness is carried: after a stall (SIGSTOP, a
// machine busy for seconds) the engine goes on from where it is, without a burst.
constexpr double kMaxLateS = 0.05;

struct StepClock {
    double due = 0;  // when the running step is due; 0 when the engine was idle

    void run(double step) {
        const double now = mono_s();
        const double start = due > 0 ? std::max(due, now - kMaxLateS) : now;
        due = start + step;
        if (due > now)
            std::this_thread::sleep_until(std::chrono::steady_clock::time_point(
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(due))));
    }
    void idle() { due = 0; }
};

// KV memory as vLLM would report it for a Qwen3-8B-like model (144 KiB per token at
// 16 bits, half that in FP8).
double kv_gib(const ServeConfig& cfg) {
    return static_cast<double>(cfg.num_gpu_blocks) * cfg.block_size * kv_bytes_per_token(cfg) / (1 << 30);
}

// The engine process: renames itself as vLLM's does, boots, then steps the scheduler until
// told to stop. It outlives a SIGKILL of the API server for a while, holding its "GPU".
[[noreturn]] void engine_core(const ServeConfig& cfg, Shared& sh, int api_pid, char* argv_area,
                              std::size_t argv_bytes) {
    prctl(PR_SET_NAME, "VLLM::EngineCore", 0, 0, 0);
    if (argv_area && argv_bytes > 0) {
        std::memset(argv_area, 0, argv_bytes);
        std::strncpy(argv_area, "VLLM::EngineCore", argv_bytes - 1);
    }
    struct sigaction sa {};
    sa.sa_handler = core_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    sigset_t all;
    sigemptyset(&all);
    sigaddset(&all, SIGTERM);
    sigaddset(&all, SIGINT);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);

    const int pid = getpid();
    sleep_s(cfg.boot_s * 0.6 / cfg.time_scale);
    log_engine_boot(cfg, pid, kv_gib(cfg));
    const bool kv_too_small = static_cast<long long>(cfg.num_gpu_blocks - 1) * cfg.block_size < cfg.max_model_len;
    if (!cfg.fail_boot.empty() || kv_too_small) {
        log_engine_boot_failure(cfg, pid, kv_too_small ? "kv" : cfg.fail_boot, kv_gib(cfg));
        _exit(1);
    }
    log_engine_ready(cfg, pid);
    CoreState state(sh.cfg);
    {
        Lock l(sh);
        sh.core_pid = pid;
        sh.core_ready = true;
    }
    double orphan_since = 0;
    StepClock clock;
    while (!g_core_stop) {
        if (getppid() != api_pid) {
            if (orphan_since == 0) orphan_since = mono_s();
            if (mono_s() - orphan_since > cfg.orphan_linger_s) _exit(0);
        }
        double step = 0;
        bool crash = false;
        {
            Lock l(sh);
            crash = sh.crash_now;
            if (!crash) {
                step = schedule(sh, state, mono_s());
                if (step < 0) {
                    clock.idle();
                    wait_for(sh, sh.work, 0.05);
                    continue;
                }
            }
        }
        if (crash) {
            log_engine_fatal(pid);
            _exit(1);
        }
        clock.run(step);
        Lock l(sh);
        complete_step(sh, state, mono_s());
        pthread_cond_broadcast(&sh.progress);
    }
    log_engine_shutdown(pid, g_core_signal == SIGINT ? "SIGINT" : "SIGTERM");
    _exit(0);
}

EngineConfig engine_config(const ServeConfig& cfg) {
    EngineConfig e;
    e.num_blocks = cfg.num_gpu_blocks;
    e.block_size = cfg.block_size;
    e.max_num_seqs = cfg.max_num_seqs;
    e.max_model_len = cfg.max_model_len;
    e.max_queued = cfg.max_queued > 0 ? std::min(cfg.max_queued, kMaxSlots) : kMaxSlots;
    e.min_step_s = cfg.min_step_ms / 1000.0 / cfg.time_scale;
    e.tokens_per_s = cfg.tokens_per_s * cfg.time_scale;
    e.prefill_tokens_per_s = cfg.prefill_tokens_per_s * cfg.time_scale;
    e.crash_on_request = cfg.crash_on_request;
    e.prefix_caching = cfg.prefix_caching;
    e.spec_tokens = cfg.spec_tokens;
    e.spec_accept = cfg.spec_accept;
    e.running_counts_waiting = cfg.running_counts_waiting;
    e.seed = cfg.seed;
    // --sim-noise: this start runs its decode steps faster or slower by the draw.
    e.speed_factor = cfg.speed_factor;
    e.tokens_per_s *= cfg.speed_factor;
    e.min_step_s /= cfg.speed_factor;
    std::snprintf(e.kv_cache_dtype, sizeof e.kv_cache_dtype, "%s", cfg.kv_cache_dtype.c_str());
    return e;
}

// What the stats logger last saw, to log the interval's figures.
struct LoggedCounts {
    long long prompt = 0, gen = 0, queries = 0, hits = 0, drafts = 0, draft_tokens = 0, accepted = 0, preempted = 0;
    long long per_pos[kMaxSpecTokens] = {};
};

// vLLM's "SpecDecoding metrics:" line for the interval.
void log_spec_interval(const ServeConfig& cfg, int pid, const LoggedCounts& now, const LoggedCounts& last) {
    const double drafts = static_cast<double>(now.drafts - last.drafts);
    if (drafts <= 0) return;
    const double accepted = static_cast<double>(now.accepted - last.accepted);
    const double drafted = static_cast<double>(now.draft_tokens - last.draft_tokens);
    std::string per_pos;
    for (int i = 0; i < std::min(cfg.spec_tokens, kMaxSpecTokens); ++i)
        per_pos += fmt::format("{}{:.3f}", i ? ", " : "", (now.per_pos[i] - last.per_pos[i]) / drafts);
    log("APIServer", pid, "INFO", "metrics.py:100",
        fmt::format("SpecDecoding metrics: Mean acceptance length: {:.2f}, Accepted throughput: {:.2f} tokens/s, "
                    "Drafted throughput: {:.2f} tokens/s, Accepted: {:.0f} tokens, Drafted: {:.0f} tokens, "
                    "Per-position acceptance rate: {}, Avg Draft acceptance rate: {:.1f}%",
                    1.0 + accepted / drafts, accepted / cfg.log_interval_s, drafted / cfg.log_interval_s, accepted,
                    drafted, per_pos, drafted > 0 ? accepted / drafted * 100 : 0.0));
}

// The "Engine 000: Avg prompt throughput ..." line vLLM logs while it has work.
void stats_logger(const ServeConfig& cfg, Shared& sh, int pid) {
    LoggedCounts last;
    for (;;) {
        sleep_s(cfg.log_interval_s);
        LoggedCounts now;
        int running, waiting;
        double usage;
        {
            Lock l(sh);
            now = {sh.prompt_tokens, sh.generation_tokens, sh.prefix_queries, sh.prefix_hits,
                   sh.spec_drafts,   sh.spec_draft_tokens, sh.spec_accepted,  {}};
            std::copy(std::begin(sh.spec_accepted_per_pos), std::end(sh.spec_accepted_per_pos), now.per_pos);
            now.preempted = sh.preemptions;
            running = sh.n_running, waiting = sh.n_waiting;
            usage = sh.kv_usage();
        }
        if (now.prompt == last.prompt && now.gen == last.gen && running == 0 && waiting == 0) continue;
        const long long queries = now.queries - last.queries;
        // 0.33: the interval's preemptions, only when there were some (LoggingStatLogger.log).
        const long long preempted = now.preempted - last.preempted;
        const std::string preemptions =
            cfg.stats_preemptions && preempted > 0 ? fmt::format("Preemptions: {}, ", preempted) : "";
        log("APIServer", pid, "INFO", "loggers.py:315",
            fmt::format("Engine 000: Avg prompt throughput: {:.1f} tokens/s, Avg generation throughput: {:.1f} "
                        "tokens/s, Running: {} reqs, Waiting: {} reqs, {}GPU KV cache usage: {:.1f}%, Prefix cache "
                        "hit rate: {:.1f}%",
                        (now.prompt - last.prompt) / cfg.log_interval_s, (now.gen - last.gen) / cfg.log_interval_s,
                        running, waiting, preemptions, usage * 100,
                        queries > 0 ? 100.0 * static_cast<double>(now.hits - last.hits) / queries : 0.0));
        log_spec_interval(cfg, pid, now, last);
        last = now;
    }
}

// Waits until the engine says it is ready: false, said in the log, if it died booting.
bool wait_engine_ready(pid_t core, Shared& sh, int api_pid) {
    for (;;) {
        int status = 0;
        if (waitpid(core, &status, WNOHANG) == core) {
            log_api_boot_failure(api_pid);
            return false;
        }
        {
            Lock l(sh);
            if (sh.core_ready) return true;
        }
        sleep_s(0.01);
    }
}

// The API server's threads beside the requests: one waits for the engine to exit (and,
// unless the server is stopping, says it died and stops the server with SIGUSR1), one logs
// the stats line, and --sim-die-after-s kills both processes without a word. The server
// never returns from serve_main (it _exits), so the flags outlive these threads.
void start_watchers(const ServeConfig& cfg, Shared& sh, pid_t core, int api_pid, std::atomic<bool>& stopping,
                    std::atomic<bool>& core_gone) {
    std::thread([&cfg, &sh, core, api_pid, &stopping, &core_gone] {
        int status = 0;
        while (waitpid(core, &status, 0) < 0 && errno == EINTR) {}
        core_gone = true;
        if (stopping) return;
        {
            Lock l(sh);
            sh.core_dead = true;
            pthread_cond_broadcast(&sh.progress);
        }
        log_api_engine_dead(api_pid);
        sleep_s(cfg.dead_linger_s);
        kill(api_pid, SIGUSR1);
    }).detach();
    std::thread(stats_logger, std::cref(cfg), std::ref(sh), api_pid).detach();
    if (cfg.die_after_s > 0) {
        std::thread([&cfg, core] {
            sleep_s(cfg.die_after_s);
            kill(core, SIGKILL);  // the machine's OOM killer, say: no goodbye from either
            kill(getpid(), SIGKILL);
        }).detach();
    }
}

}  // namespace

int serve_main(const ServeConfig& cfg, char* argv_area, std::size_t argv_bytes) {
    const double start_wall = wall_s();
    Shared* sh = create_shared(engine_config(cfg), start_wall);
    // Signals are taken by sigwait in the main thread; every other thread inherits the mask.
    sigset_t waited;
    sigemptyset(&waited);
    sigaddset(&waited, SIGTERM);
    sigaddset(&waited, SIGINT);
    sigaddset(&waited, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &waited, nullptr);

    const int api_pid = getpid();
    std::fflush(nullptr);
    log_api_start(cfg, api_pid);
    if (!cfg.model_error.empty()) {
        // transformers reads the folder's config.json in the API server, before any engine.
        log_api_config_failure(cfg, api_pid);
        return 1;
    }
    log_api_config(cfg, api_pid);
    sleep_s(cfg.boot_s * 0.2 / cfg.time_scale);
    const pid_t core = fork();
    if (core < 0) {
        std::perror("fork");
        return 1;
    }
    if (core == 0) engine_core(cfg, *sh, api_pid, argv_area, argv_bytes);

    if (!wait_engine_ready(core, *sh, api_pid)) return 1;

    HttpApi api(cfg, *sh, api_pid, start_wall);
    int port = api.bind();
    if (port < 0) {
        log_plain("APIServer", api_pid,
                  fmt::format("ERROR:    [Errno 98] error while attempting to bind on address ('{}', {}): address "
                              "already in use",
                              cfg.host, cfg.port));
        kill(core, SIGKILL);
        waitpid(core, nullptr, 0);
        return 1;
    }
    log_api_ready(cfg, api_pid, port);
    std::thread listener([&api] { api.listen(); });

    std::atomic<bool> stopping{false};
    std::atomic<bool> core_gone{false};
    start_watchers(cfg, *sh, core, api_pid, stopping, core_gone);

    int sig = 0;
    while (sigwait(&waited, &sig) != 0) {}
    stopping = true;
    int rc = 0;
    if (sig == SIGUSR1) {
        rc = 1;  // the engine died; vLLM's API server shuts down after it
    } else {
        kill(core, SIGTERM);
        for (int i = 0; i < 500 && !core_gone; ++i) sleep_s(0.01);
        if (!core_gone) kill(core, SIGKILL);
    }
    api.stop();
    listener.join();
    log_plain("APIServer", api_pid, "INFO:     Shutting down");
    log_plain("APIServer", api_pid, fmt::format("INFO:     Finished server process [{}]", api_pid));
    std::fflush(nullptr);
    _exit(rc);
}

}  // namespace sim
