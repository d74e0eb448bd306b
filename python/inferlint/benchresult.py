"""A load tool's own result file (vllm bench serve, SGLang's and TensorRT-LLM's clients)."""

from ._native.benchresult import BenchResult, load, parse

__all__ = ["BenchResult", "load", "parse"]
