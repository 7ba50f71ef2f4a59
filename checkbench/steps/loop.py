"""The event loop every model call runs on: uvloop's where it is installed, else asyncio's."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new loop: uvloop's (libuv), which spends less CPU per HTTP call than asyncio's own
    (bench/bench_generate.py prints both), on the platforms it supports; asyncio's elsewhere."""
    try:
        import uvloop
    except ImportError:  # Windows: uvloop is not installed there (see pyproject.toml)
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on a loop from `new_event_loop`."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)
