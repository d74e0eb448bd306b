// The simulated engine's state and scheduler. The state lives in one block of shared
// memory: the API server process adds requests and reads progress, the EngineCore child
// process steps the scheduler, as vLLM splits the two. Plain data only (it crosses fork).
#pragma once

#include <pthread.h>

#include <string>

namespace sim {

inline constexpr int kMaxSlots = 4096;
inline constexpr int kMaxBounds = 24;

struct Histogram {
    int n_bounds = 0;
    double bounds[kMaxBounds] = {};
    long long counts[kMaxBounds + 1] = {};  // per bucket, not cumulative; last is +Inf
    double sum = 0.0;
    long long count = 0;

    void observe(double v);
};

// vLLM's request histograms, in the order /metrics lists them.
enum class Hist {
    prompt_tokens,
    generation_tokens,
    iteration_tokens,
    max_num_generation_tokens,
    params_n,
    params_max_tokens,
    ttft,
    itl,
    tpot,
    e2e,
    queue,
    inference,
    prefill,
    decode,
    num_preemptions,
    prefill_kv_computed,
    count_
};

enum class SlotState : int { free = 0, waiting, running, done, aborted };

struct Slot {
    SlotState state = SlotState::free;
    long long id = 0;
    int prompt = 0;
    int max_tokens = 0;
    int generated = 0;
    int blocks = 0;
    int preemptions = 0;
    bool scheduled_once = false;
    double t_arrival = 0, t_first_sched = 0, t_first_token = 0, t_last_token = 0, t_done = 0;
};

// The model's settings; every time is in real seconds after the time scale is applied.
struct EngineConfig {
    int num_blocks = 2022;  // including the null block vLLM reserves
    int block_size = 16;
    int max_num_seqs = 256;
    int max_model_len = 16384;
    int max_queued = kMaxSlots;      // waiting requests beyond this are refused (503)
    double min_step_s = 0.020;       // one decode step for a small batch
    double tokens_per_s = 1400.0;    // decode throughput shared by the running requests
    double prefill_tokens_per_s = 20000.0;
    int crash_on_request = 0;        // the engine dies when this completion arrives (1 = first)
};

struct Shared {
    pthread_mutex_t mu;
    pthread_cond_t progress;  // engine -> API: tokens were produced, or the engine died
    pthread_cond_t work;      // API -> engine: a request arrived
    EngineConfig cfg;
    double created_wall = 0;  // the _created stamp of every series
    int core_pid = 0;
    bool core_ready = false;
    bool core_dead = false;
    bool crash_now = false;
    long long completions_seen = 0;
    long long preemptions = 0, prompt_tokens = 0, generation_tokens = 0, steps = 0;
    long long success_length = 0, success_abort = 0;
    int used_blocks = 0;
    int peak_running = 0, peak_used_blocks = 0;
    Histogram hist[static_cast<int>(Hist::count_)];
    Slot slots[kMaxSlots];
    int running[kMaxSlots];  // slot indices, oldest scheduled first
    int n_running = 0;
    int waiting[kMaxSlots];  // slot indices, next to schedule first
    int n_waiting = 0;
    long long next_id = 1;

    int usable_blocks() const { return cfg.num_blocks - 1; }
    double kv_usage() const { return usable_blocks() > 0 ? double(used_blocks) / usable_blocks() : 0.0; }
};

// Shared memory that survives fork (anonymous, MAP_SHARED), with a robust process-shared
// mutex so that a process dying with the lock held does not hang the other.
Shared* create_shared(const EngineConfig& cfg, double created_wall);

class Lock {
public:
    explicit Lock(Shared& s);
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

private:
    Shared& s_;
};

// Waits on a condition for at most timeout_s (the lock must be held through Lock).
void wait_for(Shared& s, pthread_cond_t& cond, double timeout_s);

double mono_s();
double wall_s();

// ---- API side (lock held) ----
enum class Admit { ok, queue_full, too_long };
// Adds a request; slot index in *slot when ok.
Admit submit(Shared& s, int prompt_tokens, int max_tokens, double now, int* slot);
// Frees a finished slot once its answer is sent, or aborts one still in flight.
void release(Shared& s, int slot, double now);

// ---- engine side (lock held) ----
// Admits and preempts for the next step; returns how long the step takes, or a negative
// number when nothing is running or waiting.
double schedule(Shared& s, double now);
// Every running request gains one token; finished ones leave and free their blocks.
void complete_step(Shared& s, double now);

// The ground truth as JSON text, for the /sim/state debug endpoint.
std::string state_json(const Shared& s);

}  // namespace sim
