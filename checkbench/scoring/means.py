"""Means of item scores over items and tag groups, with bootstrap intervals: the unscored
items counted as 0 ("zero") or left out ("exclude"), their number reported beside every mean.

Scores are shown on a 0-100 scale with 2 decimals, rounded as the FB-Bench authors do:
round(round(x, 4) * 100, 2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel

from checkbench.choices import UnscoredPolicy
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring.items import as_column, score_responses
from checkbench.stats import DEFAULT_B, DEFAULT_SEED, Estimate, macro_mean_ci, mean_ci


class GroupScore(BaseModel):
    """A mean on the 0-100 scale with its 95% bootstrap interval (None when n is too small).
    `n` counts the items in the estimate; `unscored` the group's unscored items."""

    score: float | None
    ci: tuple[float, float] | None
    n: int
    unscored: int


def percent(fraction: float) -> float:
    """A fraction as a percentage, rounded like the FB-Bench leaderboard."""
    return round(round(fraction, 4) * 100, 2)


def apply_policy(scores: np.ndarray, policy: UnscoredPolicy) -> tuple[np.ndarray, int]:
    """The values to average, unscored items (NaN) made 0 or left out, and how many they are."""
    unscored = np.isnan(scores)
    kept = np.where(unscored, 0.0, scores) if policy == "zero" else scores[~unscored]
    return kept, int(unscored.sum())


def _group_score(estimate: Estimate, unscored: int) -> GroupScore:
    if estimate.n == 0:
        return GroupScore(score=None, ci=None, n=0, unscored=unscored)
    ci = (percent(estimate.low), percent(estimate.high)) if estimate.has_interval else None
    return GroupScore(score=percent(estimate.value), ci=ci, n=estimate.n, unscored=unscored)


def summarize(
    scores: Sequence[float | None] | np.ndarray,
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> GroupScore:
    """Mean over items with a bootstrap interval over items (scores as a list with None for
    unscored, or as a column with NaN)."""
    kept, unscored = apply_policy(as_column(scores), policy)
    return _group_score(mean_ci(kept, b=b, seed=seed), unscored)


def macro_summarize(
    groups: Sequence[Sequence[float | None] | np.ndarray],
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> GroupScore:
    """Mean of the non-empty group means, bootstrapped within each group."""
    kept = [apply_policy(as_column(group), policy) for group in groups]
    estimate = macro_mean_ci([values for values, _ in kept], b=b, seed=seed)
    return _group_score(estimate, sum(unscored for _, unscored in kept))


def group_by_facet(items: Iterable[Item], facet: str) -> dict[str, list[Item]]:
    """Items by each value of a tag facet, values sorted; an item with several values is in
    each of their groups, an item without the facet in none."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        for value in item.tag(facet):
            groups[value].append(item)
    return dict(sorted(groups.items()))


def facet_breakdown(
    items: Iterable[Item],
    scores: Mapping[str, float | None],
    facet: str,
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> dict[str, GroupScore]:
    """Mean score per value of a facet, over the items that have a score entry."""
    scored = [item for item in items if item.id in scores]
    return {
        value: summarize([scores[item.id] for item in group], policy, b=b, seed=seed)
        for value, group in group_by_facet(scored, facet).items()
    }


def model_summaries(
    items: Iterable[Item],
    responses: Iterable[Response],
    verdicts: Iterable[Verdict],
    *,
    policy: UnscoredPolicy = "zero",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> dict[str, GroupScore]:
    """Per model: item scores (each item's rule, e.g. the mean of its checks), then their
    mean over items with a bootstrap interval over items (the Conv-to-Bench score)."""
    table = score_responses(items, responses, verdicts)
    return {
        model: summarize(list(scores.values()), policy, b=b, seed=seed)
        for model, scores in sorted(table.items())
    }
