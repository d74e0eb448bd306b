// The KV block pool with vLLM's prefix cache, held by the EngineCore process only. A full
// block of prompt tokens is known by a hash of its tokens chained to the block before it,
// as vLLM's block hashes are; a request whose leading blocks are in the cache takes them
// instead of computing them. A block no running request holds stays cached while the pool
// has empty blocks to give, and is evicted (least recently freed first) when a request
// needs it: cached blocks count as free, as they do in vLLM's kv_cache_usage_perc.
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sim {

class KvPool {
public:
    KvPool(int usable_blocks, bool caching, int slots);

    int free_blocks() const { return usable_ - used(); }
    int used() const { return anon_used_ + static_cast<int>(cached_.size()) - cached_free_; }
    int cached_blocks() const { return static_cast<int>(cached_.size()); }
    bool caching() const { return caching_; }

    // The leading blocks of `hashes` that are cached, at most `max_blocks`.
    int longest_hit(const std::uint64_t* hashes, int n, int max_blocks) const;
    // Free blocks that taking the first `hit` of `hashes` would use up (cached blocks no
    // running request holds).
    int hit_cost(const std::uint64_t* hashes, int hit) const;
    // Gives slot `slot` the first `hit` cached blocks, `fresh` new ones, and caches the
    // new ones that hold hashes[hit..n) (full prompt blocks not cached yet). The caller has
    // checked that hit_cost + fresh blocks are free.
    void admit(int slot, const std::uint64_t* hashes, int n, int hit, int fresh);
    // `k` new blocks for a running request (its decode grows past a block).
    void grow(int slot, int k);
    // Every block the slot holds goes back: cached ones stay cached (freed last block
    // first, so a prefix outlives its tail), the rest are empty again.
    void release(int slot);
    int held(int slot) const;

private:
    struct Cached {
        int refs = 0;
        std::uint64_t freed_at = 0;  // when refs last fell to 0 (the LRU order)
    };
    struct Held {
        std::vector<std::uint64_t> hashes;
        int anon = 0;
    };
    void take_empty(int k);  // evicts LRU cached blocks until k empty blocks exist

    int usable_;
    bool caching_;
    int anon_used_ = 0;
    int cached_free_ = 0;
    std::uint64_t tick_ = 0;
    std::unordered_map<std::uint64_t, Cached> cached_;
    std::set<std::pair<std::uint64_t, std::uint64_t>> lru_;  // (freed_at, hash) of unheld cached blocks
    std::vector<Held> held_;
};

// The chained hash of the next full block: its parent's hash and its tokens.
std::uint64_t block_hash(std::uint64_t parent, const std::uint64_t* tokens, int n);
// One token's id: a word of a text prompt, hashed (FNV-1a).
std::uint64_t word_token(const char* begin, const char* end);

}  // namespace sim
