"""Retries with exponential backoff and full jitter, honouring Retry-After."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from checkbench.llm.base import LLMError

T = TypeVar("T")
DEFAULT_DEADLINE_S = 1800.0
"""The default bound on one call, every attempt and wait included (`--deadline`)."""
_JITTER = random.Random()
"""The jitter's source, seeded once: seeding a new generator per call costs more than the call."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before giving up on a retryable failure."""

    attempts: int = 6
    base_s: float = 0.5
    cap_s: float = 30.0
    max_retry_after_s: float = 120.0
    deadline_s: float | None = DEFAULT_DEADLINE_S
    """Seconds one call may take over all its attempts and waits (None: no bound)."""

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
    """Run `call`, retrying retryable LLMErrors; the last error propagates. Past the policy's
    deadline the call fails, whatever attempt it is at (a server that never finishes a body)."""
    rng = rng or _JITTER
    loop = asyncio.get_running_loop()
    end = None if policy.deadline_s is None else loop.time() + policy.deadline_s
    for attempt in range(1, policy.attempts + 1):
        try:
            if end is None:
                return await call()
            return await asyncio.wait_for(call(), max(end - loop.time(), 0.0))
        except TimeoutError:
            raise _past_deadline(policy, attempt) from None
        except LLMError as exc:
            if not exc.retryable or attempt == policy.attempts:
                raise
            if on_retry is not None:
                on_retry(exc)
            wait = policy.delay(attempt, exc.retry_after, rng)
            if end is not None and loop.time() + wait >= end:
                raise _past_deadline(policy, attempt, exc) from None
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")


def _past_deadline(policy: RetryPolicy, attempts: int, last: LLMError | None = None) -> LLMError:
    """The failure of a call that used up its deadline (after its last error, if any)."""
    after = f" (last: {last})" if last is not None else ""
    return LLMError(
        f"no answer within the deadline of {policy.deadline_s:g} s over {attempts} "
        f"attempt(s){after} (--deadline)",
        retryable=False,
        timeout=True,
    )
