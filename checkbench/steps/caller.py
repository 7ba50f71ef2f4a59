"""Model calls through the run store: cache first, then the backend under limits and retries."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult, LLMError
from checkbench.llm.retry import RetryPolicy, with_retries
from checkbench.store import RunStore


@dataclass(frozen=True)
class CallOutcome:
    """The result of one logical call; exactly one of result and error is set."""

    result: ChatResult | None
    error: str | None
    cached: bool
    latency_s: float


@dataclass
class CallCounters:
    """Live counts for progress displays."""

    calls: int = 0
    cached: int = 0
    errors: int = 0
    retries: int = 0
    tokens: int = 0


@dataclass
class Caller:
    """Every model call of a run goes through here, so it is cached, limited and recorded."""

    store: RunStore
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    counters: CallCounters = field(default_factory=CallCounters)
    _limits: dict[str, asyncio.Semaphore] = field(default_factory=dict)

    def _limit(self, backend: ChatBackend) -> asyncio.Semaphore:
        if backend.name not in self._limits:
            self._limits[backend.name] = asyncio.Semaphore(backend.max_concurrency)
        return self._limits[backend.name]

    def _count_retry(self, _error: LLMError) -> None:
        self.counters.retries += 1

    async def call(self, backend: ChatBackend, request: ChatRequest, *, role: str) -> CallOutcome:
        """Answer from the store when an identical request succeeded before, else call the model."""
        key = request.cache_key(backend.name)
        cached = self.store.cached_result(key)
        if cached is not None:
            self.counters.cached += 1
            return CallOutcome(cached, None, cached=True, latency_s=0.0)
        async with self._limit(backend):
            start = time.perf_counter()
            try:
                result = await with_retries(
                    lambda: backend.chat(request), self.policy, on_retry=self._count_retry
                )
                error = None
            except LLMError as exc:
                result, error = None, str(exc)
            latency = time.perf_counter() - start
        self.store.record_call(
            key=key,
            model=backend.name,
            role=role,
            request=request,
            result=result,
            error=error,
            latency_s=latency,
        )
        self.counters.calls += 1
        if result is None:
            self.counters.errors += 1
        else:
            self.counters.tokens += result.prompt_tokens + result.completion_tokens
        return CallOutcome(result, error, cached=False, latency_s=latency)
