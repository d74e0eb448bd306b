"""Gauge recordings (``inferlint.series/1``, JSON Lines): the only place concurrency and KV
occupancy during a run are visible."""

from ._native.series import SCHEMA, Sample, Series, from_samples, parse, read

__all__ = ["SCHEMA", "Sample", "Series", "from_samples", "parse", "read"]
