"""The difficulty post-filter of FB-Bench curation: drop the items that every weak model answers
with full score, since they cannot tell models apart.

An item is dropped only when every weak model has a response with a full score (1 within
rounding: all checks passed under "all"/"mean", weights summing to 1 under "weighted").
An item that no weak model is known to have missed, but where some weak model's answer failed
or was not fully judged, is undecided: it is kept and counted, never guessed either way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from checkbench.errors import InputError
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import score_responses
from checkbench.steps.stage import StageSummary

FULL_SCORE_TOLERANCE = 1e-6


class DifficultyReport(BaseModel):
    """What the post-filter kept and dropped, and how often each weak model scored full."""

    judge: str
    weak_models: list[str]
    seen: int
    kept: int
    dropped: int
    """Items every weak model answered with full score."""
    undecided: int
    """Kept items that no weak model is known to have missed, but where some weak model's
    answer failed or is not fully judged."""
    full_scores: dict[str, int]
    """Per weak model: items it answered with full score."""
    dropped_ids: list[str]
    stages: list[StageSummary] = Field(default_factory=list)
    """What answering and judging did in this invocation (set by the caller that ran them)."""


def is_full(score: float | None) -> bool:
    return score is not None and math.isclose(score, 1.0, abs_tol=FULL_SCORE_TOLERANCE)


def keep_difficult(
    items: Sequence[Item],
    responses: Iterable[Response],
    verdicts: Iterable[Verdict],
    weak_models: Sequence[str],
    judge: str,
) -> tuple[list[Item], DifficultyReport]:
    """The items some weak model did not ace (in order), and the report."""
    if not weak_models:
        raise InputError("the difficulty filter needs at least one weak model")
    table = score_responses(items, responses, verdicts)
    kept: list[Item] = []
    dropped: list[str] = []
    undecided = 0
    for item in items:
        scores = [table.get(model, {}).get(item.id) for model in weak_models]
        if all(is_full(score) for score in scores):
            dropped.append(item.id)
            continue
        kept.append(item)
        undecided += all(score is None or is_full(score) for score in scores)
    full = {
        model: sum(is_full(table.get(model, {}).get(item.id)) for item in items)
        for model in weak_models
    }
    report = DifficultyReport(
        judge=judge,
        weak_models=list(weak_models),
        seen=len(items),
        kept=len(kept),
        dropped=len(dropped),
        undecided=undecided,
        full_scores=full,
        dropped_ids=dropped,
    )
    return kept, report
