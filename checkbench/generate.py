"""Run candidate models over a benchmark's items into a run store."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from checkbench.llm.base import ChatBackend, ChatRequest, backend_sampling
from checkbench.schema import Item, Response, Usage
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageRun, StageSummary
from checkbench.store import RunStore

CANDIDATE = "candidate"
DEFAULT_MAX_TOKENS = 1024
T = TypeVar("T")


@dataclass(frozen=True)
class GenerationSettings:
    """User overrides; None falls back to the item's hints (meta["generation"]), then defaults."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


async def _answer_budget(backend: ChatBackend, item: Item, cap: int) -> int:
    """`cap`, or what the model's context leaves after the prompt when that is smaller."""
    if backend.context_length is None:
        return cap
    prompt = await backend.count_tokens(tuple(item.messages))
    if prompt is None:
        return cap
    return max(1, min(cap, backend.context_length - prompt))


async def candidate_request(
    item: Item, settings: GenerationSettings, backend: ChatBackend, sample: int = 0
) -> ChatRequest:
    """The request a candidate model answers for one item (sample number `sample`). Sampling
    comes from the flags, then the model's defaults (models file), then the item's hints."""
    hints = item.generation_hints()
    model = backend_sampling(backend)
    temperature = _first(settings.temperature, model.temperature, hints.temperature) or 0.0
    explicit_max = settings.max_tokens or model.max_tokens
    max_tokens = explicit_max or hints.max_tokens or DEFAULT_MAX_TOKENS
    if explicit_max is None and hints.fit_context:
        max_tokens = await _answer_budget(backend, item, max_tokens)
    return ChatRequest(
        messages=tuple(item.messages),
        temperature=temperature,
        max_tokens=max_tokens,
        seed=_first(settings.seed, model.seed, hints.seed),
        top_p=model.top_p,
        sample=sample,
    )


def _first(*values: T | None) -> T | None:
    """The first value that is set: a flag, then the model's default, then the item's hint."""
    return next((value for value in values if value is not None), None)


async def answer_item(model: StepModel, item: Item, settings: GenerationSettings) -> Response:
    """One candidate's answer to one item; a call that failed is a Response with its error."""
    request = await candidate_request(item, settings, model.backend)
    outcome = await model.call(request, role=CANDIDATE)
    if outcome.result is None:
        return Response(item_id=item.id, model=model.name, error=outcome.error)
    result = outcome.result
    return Response(
        item_id=item.id,
        model=model.name,
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
    """Answer every stored item with every backend, skipping answers already in the store.
    Items are read from the store in batches as the workers take them, so memory does not
    grow with the benchmark."""
    settings = settings or GenerationSettings()
    stage = StageRun.begin(store, caller, progress)
    items = store.count_items()
    already = sum(store.count_answered(backend.name) for backend in backends)
    stage.progress.start("generate", items * len(backends) - already)
    failed = 0

    def answer_with(backend: ChatBackend) -> Callable[[Item], Awaitable[None]]:
        model = stage.model(backend)

        async def answer(item: Item) -> None:
            nonlocal failed
            response = await answer_item(model, item, settings)
            store.put_response(response)
            failed += response.error is not None

        return answer

    await asyncio.gather(
        *(stage.pool(store.unanswered(b.name), b.max_concurrency, answer_with(b)) for b in backends)
    )
    return stage.clock.summary(
        "generate", total=items * len(backends), already_done=already, errors=failed
    )
