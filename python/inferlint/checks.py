"""The tripwires: one function each, returning a :class:`~inferlint.CheckResult`. None raises
on a finding; call ``result.raise_for_status()`` to stop on one.

T1-T15 under the Python tool's names; T16-T22 are this port's own.
"""

from ._native.checks import (
    check_backend_honoured,
    check_block_size,
    check_boot_failure,
    check_chunks_not_tokens,
    check_client_server_agree,
    check_concurrency_reached,
    check_failed_requests,
    check_gpu_shared,
    check_known_engine_bug,
    check_kv_dtype_as_asked,
    check_kv_memory_stable,
    check_no_preemption,
    check_null_block,
    check_prefix_cache,
    check_realized_config,
    check_same_pool,
    check_streams_vs_running,
    check_unparsed,
    concurrency_ceiling,
    does_not_apply,
    engine_of,
    precise_rate,
    running_cap,
    with_timer_comparison,
)

__all__ = [
    "check_backend_honoured",
    "check_block_size",
    "check_boot_failure",
    "check_chunks_not_tokens",
    "check_client_server_agree",
    "check_concurrency_reached",
    "check_failed_requests",
    "check_gpu_shared",
    "check_known_engine_bug",
    "check_kv_dtype_as_asked",
    "check_kv_memory_stable",
    "check_no_preemption",
    "check_null_block",
    "check_prefix_cache",
    "check_realized_config",
    "check_same_pool",
    "check_streams_vs_running",
    "check_unparsed",
    "concurrency_ceiling",
    "does_not_apply",
    "engine_of",
    "precise_rate",
    "running_cap",
    "with_timer_comparison",
]
