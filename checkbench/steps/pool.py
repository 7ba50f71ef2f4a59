"""A fixed number of asyncio workers draining an iterable of jobs."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def run_pool(jobs: Iterable[T], workers: int, handle: Callable[[T], Awaitable[None]]) -> None:
    """Run `handle` on every job with at most `workers` running at once. Jobs are taken as
    workers free up, so a lazy iterable (a store read in batches) is read only as it is worked
    off; a worker that finds none left ends."""
    pending = iter(jobs)

    async def worker(job: T) -> None:
        await handle(job)
        for job in pending:
            await handle(job)

    # one worker per job up to `workers`: a large limit (a batch backend's) costs nothing
    await asyncio.gather(*(worker(job) for job in itertools.islice(pending, max(1, workers))))
