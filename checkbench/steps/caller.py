"""Model calls through the run store: cache first, then the backend under limits and retries."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, fields, replace

from checkbench.llm.base import (
    MAX_ANSWER_BYTES,
    ChatBackend,
    ChatRequest,
    ChatResult,
    LLMError,
    backend_identity,
)
from checkbench.llm.retry import RetryPolicy, with_retries
from checkbench.redact import redact
from checkbench.steps.budget import current as budget_now
from checkbench.store import CallRecord, RunStore

LIMITS_META = "concurrency_limits"
"""The store's meta key holding, by model name, the concurrency its adaptive limit settled on."""


def call_record(
    key: str,
    model: str,
    role: str,
    request: ChatRequest,
    result: ChatResult | None,
    error: str | None,
    latency_s: float,
    *,
    attempts: int = 1,
    timeouts: int = 0,
) -> CallRecord:
    """One model call as the run store keeps it: the request compact (its shared texts apart),
    the answer as JSON text with its token counts."""
    compact, shared = request.compact()
    return CallRecord(
        key=key,
        model=model,
        role=role,
        request=compact,
        shared=shared,
        result=result.model_dump_json(exclude_defaults=True) if result is not None else None,
        error=error,
        latency_s=latency_s,
        answer=result.content if result is not None else None,
        prompt_tokens=result.prompt_tokens if result is not None else 0,
        completion_tokens=result.completion_tokens if result is not None else 0,
        attempts=attempts,
        timeouts=timeouts,
    )


def stored_result(store: RunStore, key: str) -> ChatResult | None:
    """The answer the store keeps for an identical earlier request that succeeded, if any."""
    text = store.cached_result(key)
    return ChatResult.model_validate_json(text) if text is not None else None


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
    timeouts: int = 0
    tokens: int = 0

    def add(self, other: CallCounters) -> None:
        """Count `other`'s calls too (e.g. those a remote worker made)."""
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class _Tally:
    """Attempts and timeouts of one logical call."""

    attempts: int = 0
    timeouts: int = 0


@dataclass
class Caller:
    """Every model call of a run goes through here, so it is cached, limited and recorded."""

    store: RunStore
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    counters: CallCounters = field(default_factory=CallCounters)
    _limits: dict[str, asyncio.Semaphore] = field(default_factory=dict)
    _settled: dict[str, int] = field(default_factory=dict)

    def _limit(self, backend: ChatBackend) -> asyncio.Semaphore:
        key = backend_identity(backend)
        if key not in self._limits:
            self._limits[key] = asyncio.Semaphore(backend.max_concurrency)
        return self._limits[key]

    def _policy(self, backend: ChatBackend) -> RetryPolicy:
        """The caller's policy, with the backend's own number of retries when it has one."""
        retries = getattr(backend, "retries", None)
        policy = self.policy if retries is None else replace(self.policy, attempts=retries + 1)
        deadline = getattr(backend, "deadline_s", None)
        return policy if deadline is None else replace(policy, deadline_s=deadline)

    def _note_limit(self, backend: ChatBackend) -> None:
        """Keep the backend's adaptive limit in the store whenever it moved (for the calls
        table); backends without one have nothing to keep."""
        limit = getattr(backend, "concurrency_limit", None)
        if limit is None or self._settled.get(backend.name) == limit:
            return
        self._settled[backend.name] = limit
        limits = self.store.get_meta(LIMITS_META, {})
        self.store.set_meta(LIMITS_META, {**limits, backend.name: limit})

    def _count_retry(self, _error: LLMError) -> None:
        self.counters.retries += 1

    async def _attempts(
        self, backend: ChatBackend, request: ChatRequest, tally: _Tally
    ) -> tuple[ChatResult | None, str | None]:
        async def attempt() -> ChatResult:
            tally.attempts += 1
            try:
                return await backend.chat(request)
            except LLMError as exc:
                tally.timeouts += exc.timeout
                raise

        try:
            policy = self._policy(backend)
            result = await with_retries(attempt, policy, on_retry=self._count_retry)
        except LLMError as exc:
            return None, redact(str(exc))
        limit = getattr(backend, "max_answer_bytes", MAX_ANSWER_BYTES)
        if (size := len(result.content.encode())) > limit:
            return None, f"answer of {size} bytes over the limit of {limit} (max_answer_bytes)"
        return result, None

    async def call(
        self, backend: ChatBackend, request: ChatRequest, *, role: str, fresh: bool = False
    ) -> CallOutcome:
        """Answer from the store when an identical request succeeded before, else call the
        model. `fresh` asks the model again even then (the new answer replaces the cached one)."""
        key = request.cache_key(backend_identity(backend))
        cached = None if fresh else stored_result(self.store, key)
        if cached is not None:
            self.counters.cached += 1
            return CallOutcome(cached, None, cached=True, latency_s=0.0)
        tally = _Tally()
        async with self._limit(backend):
            budget = budget_now()
            reserved = await budget.reserve(backend, request) if budget is not None else 0.0
            start = time.perf_counter()
            result, error = await self._attempts(backend, request, tally)
            latency = time.perf_counter() - start
            if budget is not None:
                await budget.settle(backend, reserved, result)
        self.store.record_call(
            call_record(
                key,
                backend.name,
                role,
                request,
                result,
                error,
                latency,
                attempts=tally.attempts,
                timeouts=tally.timeouts,
            ),
            replace=fresh,
        )
        self._note_limit(backend)
        self.counters.calls += 1
        self.counters.timeouts += tally.timeouts
        if result is None:
            self.counters.errors += 1
        else:
            self.counters.tokens += result.prompt_tokens + result.completion_tokens
        return CallOutcome(result, error, cached=False, latency_s=latency)
