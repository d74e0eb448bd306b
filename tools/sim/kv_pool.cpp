#include "kv_pool.hpp"

#include <algorithm>

namespace sim {

KvPool::KvPool(int usable_blocks, bool caching, int slots)
    : usable_(usable_blocks), caching_(caching), held_(static_cast<std::size_t>(slots)) {}

int KvPool::longest_hit(const std::uint64_t* hashes, int n, int max_blocks) const {
    if (!caching_) return 0;
    int hit = 0;
    while (hit < std::min(n, max_blocks) && cached_.count(hashes[hit])) ++hit;
    return hit;
}

int KvPool::hit_cost(const std::uint64_t* hashes, int hit) const {
    int cost = 0;
    for (int i = 0; i < hit; ++i)
        if (cached_.at(hashes[i]).refs == 0) ++cost;
    return cost;
}

void KvPool::take_empty(int k) {
    int empty = usable_ - anon_used_ - static_cast<int>(cached_.size());
    while (empty < k && !lru_.empty()) {
        auto oldest = lru_.begin();
        cached_.erase(oldest->second);
        lru_.erase(oldest);
        --cached_free_;
        ++empty;
    }
}

void KvPool::admit(int slot, const std::uint64_t* hashes, int n, int hit, int fresh) {
    Held& h = held_[static_cast<std::size_t>(slot)];
    for (int i = 0; i < hit; ++i) {
        Cached& c = cached_.at(hashes[i]);
        if (c.refs++ == 0) {
            lru_.erase({c.freed_at, hashes[i]});
            --cached_free_;
        }
        h.hashes.push_back(hashes[i]);
    }
    take_empty(fresh);
    int cacheable = caching_ ? std::max(0, std::min(n, hit + fresh) - hit) : 0;
    for (int i = hit; i < hit + cacheable; ++i) {
        // A block computed again (vLLM recomputes the last one of a fully cached prompt)
        // is a duplicate: the cache keeps the one it has.
        if (cached_.count(hashes[i])) continue;
        cached_[hashes[i]] = Cached{1, 0};
        h.hashes.push_back(hashes[i]);
        --fresh;
    }
    h.anon += fresh;
    anon_used_ += fresh;
}

void KvPool::grow(int slot, int k) {
    take_empty(k);
    held_[static_cast<std::size_t>(slot)].anon += k;
    anon_used_ += k;
}

void KvPool::release(int slot) {
    Held& h = held_[static_cast<std::size_t>(slot)];
    for (auto it = h.hashes.rbegin(); it != h.hashes.rend(); ++it) {
        Cached& c = cached_.at(*it);
        if (--c.refs > 0) continue;
        c.freed_at = ++tick_;
        lru_.insert({c.freed_at, *it});
        ++cached_free_;
    }
    anon_used_ -= h.anon;
    h = Held{};
}

int KvPool::held(int slot) const {
    const Held& h = held_[static_cast<std::size_t>(slot)];
    return static_cast<int>(h.hashes.size()) + h.anon;
}

namespace {

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

std::uint64_t block_hash(std::uint64_t parent, const std::uint64_t* tokens, int n) {
    std::uint64_t h = mix64(parent + 0x9e3779b97f4a7c15ULL);
    for (int i = 0; i < n; ++i) h = mix64(h ^ tokens[i]);
    return h;
}

std::uint64_t word_token(const char* begin, const char* end) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const char* p = begin; p < end; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ULL;
    return h;
}

}  // namespace sim
