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
const double kTtftBounds[] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
                              1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
const double kItlBounds[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
                             0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
const double kPhaseBounds[] = {0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
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

void remove_running(Shared& s, int pos) {
    std::memmove(&s.running[pos], &s.running[pos + 1], sizeof(int) * (s.n_running - pos - 1));
    --s.n_running;
}

// The pool's counts, mirrored where the API server reads them.
void sync_pool(Shared& s, const CoreState& core) {
    s.used_blocks = core.pool.used();
    s.cached_blocks = core.pool.cached_blocks();
}

// vLLM recomputes a preempted request later: its blocks go back to the pool (cached ones
// stay cached) and it waits at the head of the queue.
void preempt(Shared& s, CoreState& core, int pos) {
    int idx = s.running[pos];
    Slot& r = s.slots[idx];
    core.pool.release(idx);
    r.blocks = 0;
    r.state = SlotState::waiting;
    ++r.preemptions;
    ++s.preemptions;
    remove_running(s, pos);
    std::memmove(&s.waiting[1], &s.waiting[0], sizeof(int) * s.n_waiting);
    s.waiting[0] = idx;
    ++s.n_waiting;
    sync_pool(s, core);
}

// Running requests whose client went away (release() marked them): their blocks go back.
void reap_aborted(Shared& s, CoreState& core) {
    for (int pos = 0; pos < s.n_running;) {
        int idx = s.running[pos];
        if (s.slots[idx].state != SlotState::aborted) {
            ++pos;
            continue;
        }
        core.pool.release(idx);
        remove_running(s, pos);
        s.slots[idx] = Slot{};
    }
    sync_pool(s, core);
}

// Tokens a step may add for a running request: its next one and, under speculative
// decoding, the drafts it verifies (vLLM's lookahead slots).
int step_tokens(const Shared& s) { return 1 + s.cfg.spec_tokens; }

// Accepted drafts of one step: each position accepted with spec_accept given the ones
// before it, as a rejection sampler stops at the first rejection.
int draw_accepted(Shared& s, CoreState& core) {
    std::bernoulli_distribution accept(std::clamp(s.cfg.spec_accept, 0.0, 1.0));
    int a = 0;
    while (a < s.cfg.spec_tokens && accept(core.rng)) ++a;
    ++s.spec_drafts;
    s.spec_draft_tokens += s.cfg.spec_tokens;
    s.spec_accepted += a;
    for (int i = 0; i < a && i < kMaxSpecTokens; ++i) ++s.spec_accepted_per_pos[i];
    return a;
}

}  // namespace

void Histogram::observe(double v) {
    int i = 0;
    while (i < n_bounds && v > bounds[i]) ++i;
    ++counts[i];
    sum += v;
    ++count;
}

double mono_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double wall_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

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
    // One row of block hashes per slot, as long as the longest prompt's full blocks; the
    // pages of rows never used are never touched.
    s->hash_stride = std::max(1, cfg.max_model_len / cfg.block_size);
    const std::size_t hash_bytes = sizeof(std::uint64_t) * kMaxSlots * static_cast<std::size_t>(s->hash_stride);
    void* rows = mmap(nullptr, hash_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (rows == MAP_FAILED) throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
    s->hashes = static_cast<std::uint64_t*>(rows);
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

PromptBlocks prompt_blocks(const std::vector<std::uint64_t>& tokens, int block_size) {
    PromptBlocks p;
    p.tokens = static_cast<int>(tokens.size());
    std::uint64_t parent = 0;
    for (std::size_t at = 0; at + static_cast<std::size_t>(block_size) <= tokens.size(); at += block_size) {
        parent = block_hash(parent, tokens.data() + at, block_size);
        p.hashes.push_back(parent);
    }
    return p;
}

CoreState::CoreState(const EngineConfig& cfg)
    : pool(cfg.num_blocks - 1, cfg.prefix_caching, kMaxSlots), rng(cfg.seed) {}

Admit submit(Shared& s, const PromptBlocks& prompt, int max_tokens, double now, int* slot) {
    if (prompt.tokens + max_tokens > s.cfg.max_model_len) return Admit::too_long;
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
    r.prompt = prompt.tokens;
    r.max_tokens = max_tokens;
    r.t_arrival = now;
    r.hashed_blocks = std::min(static_cast<int>(prompt.hashes.size()), s.hash_stride);
    std::copy_n(prompt.hashes.begin(), r.hashed_blocks, s.hashes + static_cast<std::size_t>(idx) * s.hash_stride);
    s.waiting[s.n_waiting++] = idx;
    *slot = idx;
    pthread_cond_signal(&s.work);
    return Admit::ok;
}

void release(Shared& s, int idx, double now) {
    Slot& r = s.slots[idx];
    if (r.state == SlotState::waiting || r.state == SlotState::running) {
        // The client went away: vLLM aborts the request and frees its blocks. A waiting
        // one holds none; a running one's the engine frees (reap_aborted).
        ++s.success_abort;
        H(s, Hist::e2e).observe(now - r.t_arrival);
        if (r.state == SlotState::running) {
            r.state = SlotState::aborted;
            pthread_cond_signal(&s.work);
            return;
        }
        for (int i = 0; i < s.n_waiting; ++i)
            if (s.waiting[i] == idx) {
                std::memmove(&s.waiting[i], &s.waiting[i + 1], sizeof(int) * (s.n_waiting - i - 1));
                --s.n_waiting;
                break;
            }
    }
    if (r.state != SlotState::aborted) r = Slot{};
}

namespace {

// Makes room for every running request's next step; the newest running request gives up
// its blocks when there is none. True when one was preempted.
bool grow_running(Shared& s, CoreState& core) {
    bool preempted = false;
    for (int pos = 0; pos < s.n_running;) {
        Slot& r = s.slots[s.running[pos]];
        int need = blocks_for(s, r.prompt + r.generated + step_tokens(s)) - r.blocks;
        bool self_preempted = false;
        while (need > core.pool.free_blocks()) {
            preempted = true;
            int victim = s.n_running - 1;
            if (victim == pos) {
                preempt(s, core, pos);
                self_preempted = true;
                break;
            }
            preempt(s, core, victim);
        }
        if (self_preempted) continue;
        if (need > 0) {
            core.pool.grow(s.running[pos], need);
            r.blocks += need;
            sync_pool(s, core);
        }
        ++pos;
    }
    return preempted;
}

// Admits the head of the queue when its blocks are free: the cached ones of its prefix
// taken from the cache, the rest new. Returns the tokens it prefills, or -1 when it waits.
long long admit_head(Shared& s, CoreState& core, double now) {
    const int idx = s.waiting[0];
    Slot& r = s.slots[idx];
    const std::uint64_t* hashes = s.hashes + static_cast<std::size_t>(idx) * s.hash_stride;
    const int known = r.prompt + r.generated;
    // TensorRT-LLM-like: the blocks for the whole request at once, so none is ever preempted.
    const int total = s.cfg.running_counts_waiting ? blocks_for(s, r.prompt + r.max_tokens + step_tokens(s))
                                                   : blocks_for(s, known + step_tokens(s));
    // As vLLM: the last known token is always computed, so a fully cached prompt still
    // prefills its last block.
    const int hit = core.pool.longest_hit(hashes, r.hashed_blocks, (known - 1) / s.cfg.block_size);
    if (core.pool.hit_cost(hashes, hit) + total - hit > core.pool.free_blocks()) return -1;
    std::memmove(&s.waiting[0], &s.waiting[1], sizeof(int) * (s.n_waiting - 1));
    --s.n_waiting;
    core.pool.admit(idx, hashes, r.hashed_blocks, hit, total - hit);
    sync_pool(s, core);
    r.state = SlotState::running;
    r.blocks = total;
    r.prefilled = true;
    s.running[s.n_running++] = idx;
    const int hit_tokens = hit * s.cfg.block_size;
    if (core.pool.caching()) {
        (r.scheduled_once ? s.preempted_queries : s.prefix_queries) += known;
        (r.scheduled_once ? s.preempted_hits : s.prefix_hits) += hit_tokens;
    }
    if (!r.scheduled_once) {
        r.scheduled_once = true;
        r.t_first_sched = now;
        r.cache_hit_tokens = hit_tokens;
        s.prompt_tokens += r.prompt;
        H(s, Hist::queue).observe(now - r.t_arrival);
        H(s, Hist::prefill_kv_computed).observe(r.prompt - hit_tokens);
    }
    return known - hit_tokens;
}

// The tokens a running request makes this step: one after its prefill, else one plus
// the drafts accepted, never past max_tokens.
int step_output(Shared& s, CoreState& core, Slot& r) {
    if (r.prefilled || s.cfg.spec_tokens == 0) {
        r.prefilled = false;
        return 1;
    }
    return std::min(1 + draw_accepted(s, core), r.max_tokens - r.generated);
}

}  // namespace

double schedule(Shared& s, CoreState& core, double now) {
    reap_aborted(s, core);
    if (s.n_running == 0 && s.n_waiting == 0) return -1.0;
    const bool preempted = grow_running(s, core);
    long long prefill = 0;
    // No admissions in a step that had to preempt, as vLLM's scheduler.
    while (!preempted && s.n_waiting > 0 && s.n_running < s.cfg.max_num_seqs) {
        long long tokens = admit_head(s, core, now);
        if (tokens < 0) break;
        prefill += tokens;
    }
    s.peak_running = std::max(s.peak_running, s.n_running);
    s.peak_used_blocks = std::max(s.peak_used_blocks, s.used_blocks);
    if (s.n_running == 0) return 0.005;  // nothing fits yet; look again shortly
    H(s, Hist::iteration_tokens).observe(static_cast<double>(prefill + s.n_running));
    double decode_s = std::max(s.cfg.min_step_s, s.n_running / s.cfg.tokens_per_s);
    decode_s *= 1.0 + s.cfg.step_cost_per_draft * s.cfg.spec_tokens;
    return decode_s + static_cast<double>(prefill) / s.cfg.prefill_tokens_per_s;
}

void complete_step(Shared& s, CoreState& core, double now) {
    reap_aborted(s, core);
    ++s.steps;
    for (int pos = 0; pos < s.n_running;) {
        int idx = s.running[pos];
        Slot& r = s.slots[idx];
        const int made = step_output(s, core, r);
        r.generated += made;
        s.generation_tokens += made;
        r.step_ends[r.n_steps++ % kStepRing] = r.generated;
        if (r.generated == made) {
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
        core.pool.release(idx);
        sync_pool(s, core);
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
    std::string per_pos;
    for (int i = 0; i < std::min(s.cfg.spec_tokens, kMaxSpecTokens); ++i)
        per_pos += fmt::format("{}{}", i ? ", " : "", s.spec_accepted_per_pos[i]);
    return fmt::format(
        "{{\"num_gpu_blocks\": {}, \"usable_blocks\": {}, \"block_size\": {}, \"max_num_seqs\": {}, "
        "\"running\": {}, \"waiting\": {}, \"used_blocks\": {}, \"peak_running\": {}, \"peak_used_blocks\": {}, "
        "\"preemptions\": {}, \"prompt_tokens\": {}, \"generation_tokens\": {}, \"finished\": {}, "
        "\"aborted\": {}, \"steps\": {}, \"engine_dead\": {}, \"engine_pid\": {}, "
        "\"prefix_caching\": {}, \"prefix_cache_query_tokens\": {}, \"prefix_cache_hit_tokens\": {}, "
        "\"preempted_query_tokens\": {}, \"preempted_hit_tokens\": {}, \"cached_blocks\": {}, "
        "\"kv_cache_dtype\": \"{}\", \"spec_tokens\": {}, \"spec_drafts\": {}, \"spec_draft_tokens\": {}, "
        "\"spec_accepted_tokens\": {}, \"spec_accepted_per_pos\": [{}], \"seed\": {}, \"speed_factor\": {}}}",
        s.cfg.num_blocks, s.usable_blocks(), s.cfg.block_size, s.cfg.max_num_seqs, s.n_running, s.n_waiting,
        s.used_blocks, s.peak_running, s.peak_used_blocks, s.preemptions, s.prompt_tokens, s.generation_tokens,
        s.success_length, s.success_abort, s.steps, s.core_dead ? "true" : "false", s.core_pid,
        s.cfg.prefix_caching ? "true" : "false", s.prefix_queries, s.prefix_hits, s.preempted_queries, s.preempted_hits,
        s.cached_blocks, s.cfg.kv_cache_dtype, s.cfg.spec_tokens, s.spec_drafts, s.spec_draft_tokens, s.spec_accepted,
        per_pos, s.cfg.seed, s.cfg.speed_factor);
}

}  // namespace sim
