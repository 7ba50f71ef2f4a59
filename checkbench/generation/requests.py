"""What a candidate model is asked for one item: the generation settings, the request they make
with the model's defaults and the item's hints, and the check that K samples can differ."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend, ChatRequest, backend_sampling
from checkbench.schema import Item

DEFAULT_MAX_TOKENS = 1024
T = TypeVar("T")


@dataclass(frozen=True)
class GenerationSettings:
    """User overrides; None falls back to the item's hints (meta["generation"]), then defaults.
    `samples`: how many answers each model gives each item, each its own call."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    samples: int = 1

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise InputError(f"--samples must be at least 1, not {self.samples}")


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
    temperature, seed = _randomness(item, settings, backend)
    explicit_max = settings.max_tokens or model.max_tokens
    max_tokens = explicit_max or hints.max_tokens or DEFAULT_MAX_TOKENS
    if explicit_max is None and hints.fit_context:
        max_tokens = await _answer_budget(backend, item, max_tokens)
    return ChatRequest(
        messages=tuple(item.messages),
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        top_p=model.top_p,
        sample=sample,
    )


def _randomness(
    item: Item, settings: GenerationSettings, backend: ChatBackend
) -> tuple[float, int | None]:
    """The temperature and seed of an item's request to a backend."""
    hints = item.generation_hints()
    model = backend_sampling(backend)
    temperature = _first(settings.temperature, model.temperature, hints.temperature) or 0.0
    return temperature, _first(settings.seed, model.seed, hints.seed)


def refuse_identical_samples(
    items: Iterable[Item], settings: GenerationSettings, backends: Sequence[ChatBackend]
) -> None:
    """With `samples` above 1, raise InputError when a request is deterministic (temperature
    0, or a seed): its K answers would be one answer K times."""
    if settings.samples == 1:
        return
    for item in items:
        for backend in backends:
            temperature, seed = _randomness(item, settings, backend)
            if temperature == 0 or seed is not None:
                why = "temperature 0" if temperature == 0 else f"seed {seed}"
                raise InputError(
                    f"--samples {settings.samples} needs sampled answers, but {backend.name} "
                    f"answers item '{item.id}' deterministically ({why}): set --temperature "
                    "(or the model's temperature) above 0, without a seed"
                )


def _first(*values: T | None) -> T | None:
    """The first value that is set: a flag, then the model's default, then the item's hint."""
    return next((value for value in values if value is not None), None)
