"""The event loop every model call runs on: uvloop's where it is installed, else asyncio's."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")
YOUNG_THRESHOLD = 7000
"""Allocations between two collections of the youngest generation while a stage runs (Python's
default: 700). A stage allocates and frees a few hundred objects per call, nearly all freed by
reference counting; at the default the collector ran ~115 times per 1,000 items and took 6% of
the instructions of `checkbench run` against an instant server (bench/bench_instructions.py)."""


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new loop: uvloop's (libuv), which spends less CPU per HTTP call than asyncio's own
    (bench/bench_generate.py prints both), on the platforms it supports; asyncio's elsewhere."""
    try:
        import uvloop
    except ImportError:  # Windows: uvloop is not installed there (see pyproject.toml)
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


@contextmanager
def _collector_for_a_stage() -> Iterator[None]:
    """The cyclic collector tuned for a stage, as it was after: collections of the youngest
    generation rarer, and the objects alive when the stage starts (modules, schemas, the
    caller's own) frozen out of every pass, unless the process froze some itself."""
    threshold = gc.get_threshold()
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(max(threshold[0], YOUNG_THRESHOLD), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        if freeze:
            gc.unfreeze()


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on a loop from `new_event_loop`, the collector tuned meanwhile."""
    with _collector_for_a_stage(), asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)
