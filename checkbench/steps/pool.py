"""A fixed number of asyncio workers draining a list of jobs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def run_pool(jobs: Iterable[T], workers: int, handle: Callable[[T], Awaitable[None]]) -> None:
    """Run `handle` on every job with at most `workers` running at once."""
    queue: asyncio.Queue[T] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def worker() -> None:
        while not queue.empty():
            await handle(queue.get_nowait())

    await asyncio.gather(*(worker() for _ in range(max(1, workers))))
