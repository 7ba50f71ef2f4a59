"""Run candidate models over a benchmark's items into a run store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from checkbench.calls import Caller
from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.progress import ProgressSink
from checkbench.schema import Item, Response, Usage
from checkbench.store import RunStore

CANDIDATE = "candidate"
DEFAULT_MAX_TOKENS = 1024


@dataclass(frozen=True)
class GenerationSettings:
    """User overrides; None falls back to the item's hints (meta["generation"]), then defaults."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class StageSummary:
    """What one stage did: work found done already, calls made, cache hits, failures, time."""

    stage: str
    total: int
    already_done: int
    called: int
    cached: int
    errors: int
    duration_s: float


def candidate_request(item: Item, settings: GenerationSettings) -> ChatRequest:
    """The request a candidate model answers for one item."""
    hints = item.meta.get("generation", {})
    temperature = settings.temperature
    if temperature is None:
        temperature = float(hints.get("temperature", 0.0))
    max_tokens = settings.max_tokens or int(hints.get("max_tokens", DEFAULT_MAX_TOKENS))
    return ChatRequest(
        messages=tuple(item.messages),
        temperature=temperature,
        max_tokens=max_tokens,
        seed=settings.seed,
    )


async def _answer(
    caller: Caller, backend: ChatBackend, item: Item, settings: GenerationSettings
) -> Response:
    outcome = await caller.call(backend, candidate_request(item, settings), role=CANDIDATE)
    if outcome.result is None:
        return Response(item_id=item.id, model=backend.name, error=outcome.error)
    result = outcome.result
    return Response(
        item_id=item.id,
        model=backend.name,
        content=result.content,
        usage=Usage(prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens),
        latency_s=outcome.latency_s,
    )


async def generate_responses(
    store: RunStore,
    backends: Sequence[ChatBackend],
    *,
    settings: GenerationSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> StageSummary:
    """Answer every stored item with every backend, skipping answers already in the store."""
    settings = settings or GenerationSettings()
    caller = caller or Caller(store)
    progress = progress or ProgressSink()
    items = store.items()
    queues: dict[str, asyncio.Queue[Item]] = {}
    already = 0
    for backend in backends:
        done = store.answered(backend.name)
        already += len(done)
        queue: asyncio.Queue[Item] = asyncio.Queue()
        for item in items:
            if item.id not in done:
                queue.put_nowait(item)
        queues[backend.name] = queue
    todo = sum(q.qsize() for q in queues.values())
    progress.start("generate", todo)
    start, before = time.perf_counter(), (caller.counters.calls, caller.counters.cached)
    failed = 0

    async def worker(backend: ChatBackend, queue: asyncio.Queue[Item]) -> None:
        nonlocal failed
        while not queue.empty():
            item = queue.get_nowait()
            response = await _answer(caller, backend, item, settings)
            store.put_response(response)
            failed += response.error is not None
            progress.advance(caller.counters)

    await asyncio.gather(
        *(
            worker(backend, queues[backend.name])
            for backend in backends
            for _ in range(backend.max_concurrency)
        )
    )
    return StageSummary(
        stage="generate",
        total=len(items) * len(backends),
        already_done=already,
        called=caller.counters.calls - before[0],
        cached=caller.counters.cached - before[1],
        errors=failed,
        duration_s=time.perf_counter() - start,
    )
