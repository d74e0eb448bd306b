"""A server's start-up log -> the facts about the server that actually started (KV pool,
block size, attention backend, memory split, readiness), for vLLM, SGLang and TensorRT-LLM."""

from ._native.bootlog import (
    BootFacts,
    Unparsed,
    labels,
    parse,
    parse_file,
    strip_log_prefix,
    untested_version,
)

__all__ = [
    "BootFacts",
    "Unparsed",
    "labels",
    "parse",
    "parse_file",
    "strip_log_prefix",
    "untested_version",
]
