// T5: hybrid (attention + Mamba) models force the attention block size up. The block is
// the allocation unit, so with 784-token blocks a 100-token request costs as much KV
// cache as a 784-token one.
#include "inferlint/checks/bootlog_checks.hpp"

#include "inferlint/parse/pyliteral.hpp"

#include <fmt/format.h>

namespace inferlint::checks {

CheckResult check_block_size(const parse::BootFacts& facts, long long default_block) {
    const auto& bs = facts.attention_block_size;
    const Json asked = facts.asked.block_size ? Json(*facts.asked.block_size) : Json(nullptr);
    Json requested = asked.is_null() ? Json(default_block) : asked;
    if (!bs && facts.page_size) {
        long long p = *facts.page_size;
        return {TripwireId::T5, Status::pass, fmt::format("page size {} token{}, as set", p, p != 1 ? "s" : ""),
                Json{{"page_size", p}}};
    }
    if (!bs) {
        if (!facts.ready)
            return {TripwireId::T5, Status::unknown, "boot did not get far enough to size blocks", Json::object()};
        return {TripwireId::T5, Status::pass, "no block-size override printed", Json{{"block_size", requested}}};
    }
    Json ev{
        {"block_size", *bs}, {"requested", asked}, {"mamba_page_padding_pct", or_null(facts.mamba_page_padding_pct)}};
    if (facts.kv_pool_tokens && *facts.kv_pool_tokens != 0)
        ev["pool_blocks"] = static_cast<double>(*facts.kv_pool_tokens) / static_cast<double>(*bs);
    bool as_requested = requested.is_number() && requested.get<double>() == static_cast<double>(*bs);
    if (as_requested) return {TripwireId::T5, Status::pass, fmt::format("block size {}", *bs), std::move(ev)};
    return {TripwireId::T5, Status::warn,
            fmt::format("attention block size forced to {} tokens (requested {}); each request's KV is "
                        "allocated in {}-token units",
                        *bs, parse::py_str(requested), *bs),
            std::move(ev)};
}

}  // namespace inferlint::checks
