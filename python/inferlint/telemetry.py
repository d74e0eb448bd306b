"""Snapshots of a server's /metrics (``inferlint.snapshot/1``): read from a live server
(:func:`scrape`) or a file (:func:`load`), and what two of them say (:func:`counter_delta`,
:func:`span_s`)."""

from ._native.telemetry import (
    SCHEMA,
    Metrics,
    Snapshot,
    counter_delta,
    created_changes,
    load,
    parse,
    scrape,
    span_s,
)
from .errors import ServerRestarted

__all__ = [
    "SCHEMA",
    "Metrics",
    "ServerRestarted",
    "Snapshot",
    "counter_delta",
    "created_changes",
    "load",
    "parse",
    "scrape",
    "span_s",
]
