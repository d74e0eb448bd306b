#include "engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>
#include <sys/mman.h>

namespace sim {
namespace {

const double kTokenBounds[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};
const double kIterationBounds[] = {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
const double kNBounds[] = {1, 2, 5, 10, 20};
const double kTtftBounds[] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25, 0.5,   0.75,
                              1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
const double kItlBounds[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
                             0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
const double kPhaseBounds[] = {0.3,  0.5,  0.8,  1.0,  1.5,  2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
                               30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
const double kPreemptionBounds[] = {1, 2, 3, 4, 5, 10, 20};

template <std::size_t N>
void set_bounds(Histogram& h, const double (&b)[N]) {
    static_assert(N <= kMaxBounds);
    h.n_bounds = static_cast<int>(N);
    std::copy(std::begin(b), std::end(b), h.bounds);
}

Histogram& H(Shared& s, Hist h) { return s.hist[static_cast<int>(h)]; }

int blocks_for(const Shared& s, long long tokens) {
    return static_cast<int>((tokens + s.cfg.block_size - 1) / s.cfg.block_size);
}

int free_blocks(const Shared& s) { return s.usable_blocks() - s.used_blocks; }

void remove_running(Shared& s, int pos) {
    std::memmove(&s.running[pos], &s.running[pos + 1], sizeof(int) * (s.n_running - pos - 1));
    --s.n_running;
}

// vLLM recomputes a preempted request later: its blocks go back to the pool and it
// waits at the head of the queue.
void preempt(Shared& s, int pos) {
    int idx = s.running[pos];
    Slot& r = s.slots[idx];
    s.used_blocks -= r.blocks;
    r.blocks = 0;
    r.state = SlotState::waiting;
    ++r.preemptions;
    ++s.preemptions;
    remove_running(s, pos);
    std::memmove(&s.waiting[1], &s.waiting[0], sizeof(int) * s.n_waiting);
    s.waiting[0] = idx;
    ++s.n_waiting;
}

}  // namespace

void Histogram::observe(double v) {
    int i = 0;
    while (i < n_bounds && v > bounds[i]) ++i;
    ++counts[i];
    sum += v;
    ++count;
}

double mono_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double wall_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Shared* create_shared(const EngineConfig& cfg, double created_wall) {
    void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
    auto* s = new (mem) Shared();
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&s->mu, &ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->progress, &ca);
    pthread_cond_init(&s->work, &ca);
    s->cfg = cfg;
    s->created_wall = created_wall;
    set_bounds(H(*s, Hist::prompt_tokens), kTokenBounds);
    set_bounds(H(*s, Hist::generation_tokens), kTokenBounds);
    set_bounds(H(*s, Hist::iteration_tokens), kIterationBounds);
    set_bounds(H(*s, Hist::max_num_generation_tokens), kTokenBounds);
    set_bounds(H(*s, Hist::params_n), kNBounds);
    set_bounds(H(*s, Hist::params_max_tokens), kTokenBounds);
    set_bounds(H(*s, Hist::ttft), kTtftBounds);
    set_bounds(H(*s, Hist::itl), kItlBounds);
    set_bounds(H(*s, Hist::tpot), kItlBounds);
    for (Hist h : {Hist::e2e, Hist::queue, Hist::inference, Hist::prefill, Hist::decode})
        set_bounds(H(*s, h), kPhaseBounds);
    set_bounds(H(*s, Hist::num_preemptions), kPreemptionBounds);
    set_bounds(H(*s, Hist::prefill_kv_computed), kTokenBounds);
    return s;
}

Lock::Lock(Shared& s) : s_(s) {
    if (pthread_mutex_lock(&s_.mu) == EOWNERDEAD) pthread_mutex_consistent(&s_.mu);
}
Lock::~Lock() { pthread_mutex_unlock(&s_.mu); }

void wait_for(Shared& s, pthread_cond_t& cond, double timeout_s) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double whole = std::floor(timeout_s);
    ts.tv_sec += static_cast<time_t>(whole);
    ts.tv_nsec += static_cast<long>((timeout_s - whole) * 1e9);
    if (ts.tv_nsec >= 1'000'000'000L) ++ts.tv_sec, ts.tv_nsec -= 1'000'000'000L;
    if (pthread_cond_timedwait(&cond, &s.mu, &ts) == EOWNERDEAD) pthread_mutex_consistent(&s.mu);
}

Admit submit(Shared& s, int prompt_tokens, int max_tokens, double now, int* slot) {
    if (prompt_tokens + max_tokens > s.cfg.max_model_len) return Admit::too_long;
    if (s.n_waiting >= s.cfg.max_queued) return Admit::queue_full;
    int idx = -1;
    for (int i = 0; i < kMaxSlots; ++i)
        if (s.slots[i].state == SlotState::free) {
            idx = i;
            break;
        }
    if (idx < 0) return Admit::queue_full;
    Slot& r = s.slots[idx];
    r = Slot{};
    r.state = SlotState::waiting;
    r.id = s.next_id++;
    r.prompt = prompt_tokens;
    r.max_tokens = max_tokens;
    r.t_arrival = now;
    s.waiting[s.n_waiting++] = idx;
    *slot = idx;
    pthread_cond_signal(&s.work);
    return Admit::ok;
}

void release(Shared& s, int idx, double now) {
    Slot& r = s.slots[idx];
    if (r.state == SlotState::waiting || r.state == SlotState::running) {
        // The client went away: vLLM aborts the request and frees its blocks.
        for (int i = 0; i < s.n_running; ++i)
            if (s.running[i] == idx) {
                remove_running(s, i);
                break;
            }
        for (int i = 0; i < s.n_waiting; ++i)
            if (s.waiting[i] == idx) {
                std::memmove(&s.waiting[i], &s.waiting[i + 1], sizeof(int) * (s.n_waiting - i - 1));
                --s.n_waiting;
                break;
            }
        s.used_blocks -= r.blocks;
        ++s.success_abort;
        H(s, Hist::e2e).observe(now - r.t_arrival);
    }
    r = Slot{};
}

double schedule(Shared& s, double now) {
    if (s.n_running == 0 && s.n_waiting == 0) return -1.0;
    bool preempted = false;
    // Every running request needs room for the token it is about to produce; the newest
    // running request gives up its blocks when there is none.
    for (int pos = 0; pos < s.n_running;) {
        Slot& r = s.slots[s.running[pos]];
        int need = blocks_for(s, r.prompt + r.generated + 1) - r.blocks;
        bool self_preempted = false;
        while (need > free_blocks(s)) {
            preempted = true;
            int victim = s.n_running - 1;
            if (victim == pos) {
                preempt(s, pos);
                self_preempted = true;
                break;
            }
            preempt(s, victim);
        }
        if (self_preempted) continue;
        if (need > 0) {
            r.blocks += need;
            s.used_blocks += need;
        }
        ++pos;
    }
    long long prefill = 0;
    // No admissions in a step that had to preempt, as vLLM's scheduler.
    while (!preempted && s.n_waiting > 0 && s.n_running < s.cfg.max_num_seqs) {
        int idx = s.waiting[0];
        Slot& r = s.slots[idx];
        int need = blocks_for(s, r.prompt + r.generated + 1);
        if (need > free_blocks(s)) break;
        std::memmove(&s.waiting[0], &s.waiting[1], sizeof(int) * (s.n_waiting - 1));
        --s.n_waiting;
        r.state = SlotState::running;
        r.blocks = need;
        s.used_blocks += need;
        s.running[s.n_running++] = idx;
        prefill += r.prompt + r.generated;
        if (!r.scheduled_once) {
            r.scheduled_once = true;
            r.t_first_sched = now;
            s.prompt_tokens += r.prompt;
            H(s, Hist::queue).observe(now - r.t_arrival);
            H(s, Hist::prefill_kv_computed).observe(r.prompt);
        }
    }
    s.peak_running = std::max(s.peak_running, s.n_running);
    s.peak_used_blocks = std::max(s.peak_used_blocks, s.used_blocks);
    if (s.n_running == 0) return 0.005;  // nothing fits yet; look again shortly
    H(s, Hist::iteration_tokens).observe(static_cast<double>(prefill + s.n_running));
    double decode_s = std::max(s.cfg.min_step_s, s.n_running / s.cfg.tokens_per_s);
    return decode_s + static_cast<double>(prefill) / s.cfg.prefill_tokens_per_s;
}

void complete_step(Shared& s, double now) {
    ++s.steps;
    for (int pos = 0; pos < s.n_running;) {
        int idx = s.running[pos];
        Slot& r = s.slots[idx];
        ++r.generated;
        ++s.generation_tokens;
        if (r.generated == 1) {
            r.t_first_token = now;
            H(s, Hist::ttft).observe(now - r.t_arrival);
        } else {
            H(s, Hist::itl).observe(now - r.t_last_token);
        }
        r.t_last_token = now;
        if (r.generated < r.max_tokens) {
            ++pos;
            continue;
        }
        r.state = SlotState::done;
        r.t_done = now;
        s.used_blocks -= r.blocks;
        r.blocks = 0;
        remove_running(s, pos);
        ++s.success_length;
        H(s, Hist::prompt_tokens).observe(r.prompt);
        H(s, Hist::generation_tokens).observe(r.generated);
        H(s, Hist::max_num_generation_tokens).observe(r.max_tokens);
        H(s, Hist::params_n).observe(1);
        H(s, Hist::params_max_tokens).observe(r.max_tokens);
        H(s, Hist::e2e).observe(now - r.t_arrival);
        H(s, Hist::inference).observe(now - r.t_first_sched);
        H(s, Hist::prefill).observe(r.t_first_token - r.t_first_sched);
        H(s, Hist::decode).observe(now - r.t_first_token);
        if (r.generated > 1) H(s, Hist::tpot).observe((now - r.t_first_token) / (r.generated - 1));
        H(s, Hist::num_preemptions).observe(r.preemptions);
    }
}

std::string state_json(const Shared& s) {
    return fmt::format(
        "{{\"num_gpu_blocks\": {}, \"usable_blocks\": {}, \"block_size\": {}, \"max_num_seqs\": {}, "
        "\"running\": {}, \"waiting\": {}, \"used_blocks\": {}, \"peak_running\": {}, \"peak_used_blocks\": {}, "
        "\"preemptions\": {}, \"prompt_tokens\": {}, \"generation_tokens\": {}, \"finished\": {}, "
        "\"aborted\": {}, \"steps\": {}, \"engine_dead\": {}, \"engine_pid\": {}}}",
        s.cfg.num_blocks, s.usable_blocks(), s.cfg.block_size, s.cfg.max_num_seqs, s.n_running, s.n_waiting,
        s.used_blocks, s.peak_running, s.peak_used_blocks, s.preemptions, s.prompt_tokens, s.generation_tokens,
        s.success_length, s.success_abort, s.steps, s.core_dead ? "true" : "false", s.core_pid);
}

}  // namespace sim
