"""Retries with exponential backoff and full jitter, honouring Retry-After."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from checkbench.llm.base import LLMError

T = TypeVar("T")
_JITTER = random.Random()
"""The jitter's source, seeded once: seeding a new generator per call costs more than the call."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before giving up on a retryable failure."""

    attempts: int = 6
    base_s: float = 0.5
    cap_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after_s)
        return rng.uniform(0.0, min(self.cap_s, self.base_s * 2 ** (attempt - 1)))


async def with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    on_retry: Callable[[LLMError], None] | None = None,
    rng: random.Random | None = None,
) -> T:
    """Run `call`, retrying retryable LLMErrors; the last error propagates."""
    rng = rng or _JITTER
    for attempt in range(1, policy.attempts + 1):
        try:
            return await call()
        except LLMError as exc:
            if not exc.retryable or attempt == policy.attempts:
                raise
            if on_retry is not None:
                on_retry(exc)
            await asyncio.sleep(policy.delay(attempt, exc.retry_after, rng))
    raise AssertionError("unreachable")
