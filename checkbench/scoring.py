"""Scores from verdicts: item rules, means over items and tag groups with bootstrap intervals.

An item is unscored (None) when any of its checks has an unscored verdict or no verdict; the
caller chooses the policy: count it as 0 ("zero") or leave it out ("exclude"). Either way the
number of unscored items is reported beside every score.

Scores are shown on a 0-100 scale with 2 decimals, rounded as the FB-Bench authors do:
round(round(x, 4) * 100, 2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel

from checkbench.schema import Item, Response, Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED, Estimate, macro_mean_ci, mean_ci

UnscoredPolicy = Literal["zero", "exclude"]

Scores = dict[str, float | None]
"""item id -> item score (None = unscored) for one model."""


# ---------------------------------------------------------------- one item


def item_score(item: Item, verdicts: Iterable[Verdict]) -> float | None:
    """The item's score in [0, 1] under its rule, or None when any check is unscored or
    has no verdict. `verdicts` are one (model, judge)'s verdicts on this item."""
    passed: dict[str, bool | None] = {}
    known = {check.id for check in item.checklist}
    for verdict in verdicts:
        if verdict.check_id not in known:
            raise ValueError(f"item {item.id}: verdict for unknown check {verdict.check_id!r}")
        if verdict.check_id in passed:
            raise ValueError(f"item {item.id}: several verdicts for check {verdict.check_id!r}")
        passed[verdict.check_id] = verdict.passed
    results = [passed.get(check.id) for check in item.checklist]
    if not results or any(result is None for result in results):
        return None
    if item.rule == "weighted":
        return sum(c.weight or 0.0 for c, ok in zip(item.checklist, results, strict=True) if ok)
    if item.rule == "any":
        return float(any(results))
    if item.rule == "all":
        return float(all(results))
    return sum(results) / len(results)


# ---------------------------------------------------------------- many items


class GroupScore(BaseModel):
    """A mean on the 0-100 scale with its 95% bootstrap interval. `n` counts the items in
    the estimate; `unscored` counts the group's unscored items (zeroed or excluded)."""

    score: float | None
    ci: tuple[float, float] | None
    n: int
    unscored: int


def percent(fraction: float) -> float:
    """A fraction as a percentage, rounded like the FB-Bench leaderboard."""
    return round(round(fraction, 4) * 100, 2)


def apply_policy(scores: Iterable[float | None], policy: UnscoredPolicy) -> list[float]:
    """The values to average: unscored items become 0 or are left out."""
    if policy == "zero":
        return [0.0 if score is None else score for score in scores]
    return [score for score in scores if score is not None]


def _group_score(estimate: Estimate, unscored: int) -> GroupScore:
    if estimate.n == 0:
        return GroupScore(score=None, ci=None, n=0, unscored=unscored)
    ci = (percent(estimate.low), percent(estimate.high))
    return GroupScore(score=percent(estimate.value), ci=ci, n=estimate.n, unscored=unscored)


def summarize(
    scores: Sequence[float | None],
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> GroupScore:
    """Mean over items with a bootstrap interval over items."""
    estimate = mean_ci(apply_policy(scores, policy), b=b, seed=seed)
    return _group_score(estimate, sum(score is None for score in scores))


def macro_summarize(
    groups: Sequence[Sequence[float | None]],
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> GroupScore:
    """Mean of the non-empty group means, bootstrapped within each group."""
    estimate = macro_mean_ci([apply_policy(group, policy) for group in groups], b=b, seed=seed)
    return _group_score(estimate, sum(score is None for group in groups for score in group))


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


def macro_facet_breakdown(
    items: Iterable[Item],
    scores: Mapping[str, float | None],
    facet: str,
    stratum: Callable[[Item], Hashable],
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> dict[str, GroupScore]:
    """Per value of a facet, over the items that have a score entry: the mean of the stratum
    means (e.g. one per task), bootstrapped within each stratum."""
    scored = [item for item in items if item.id in scores]
    table = {}
    for value, group in group_by_facet(scored, facet).items():
        strata: dict[Hashable, list[float | None]] = defaultdict(list)
        for item in group:
            strata[stratum(item)].append(scores[item.id])
        table[value] = macro_summarize(list(strata.values()), policy, b=b, seed=seed)
    return table


def single_judge(verdicts: Iterable[Verdict]) -> str | None:
    judges = {verdict.judge for verdict in verdicts}
    if len(judges) > 1:
        raise ValueError(f"verdicts from several judges {sorted(judges)}: score one at a time")
    return next(iter(judges), None)


def verdicts_by_unit(verdicts: Iterable[Verdict]) -> dict[tuple[str, str], list[Verdict]]:
    by_unit: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        by_unit[verdict.model, verdict.item_id].append(verdict)
    return by_unit


def answered(items: Iterable[Item], responses: Iterable[Response]) -> Iterator[tuple[str, Item]]:
    """(model, item) for every response; each model answers an item at most once."""
    by_id = {item.id: item for item in items}
    seen: set[tuple[str, str]] = set()
    for response in responses:
        item = by_id.get(response.item_id)
        if item is None:
            raise ValueError(f"response of {response.model} to unknown item {response.item_id}")
        if (response.model, item.id) in seen:
            raise ValueError(f"several responses of {response.model} to {item.id}")
        seen.add((response.model, item.id))
        yield response.model, item


def score_responses(
    items: Iterable[Item], responses: Iterable[Response], verdicts: Iterable[Verdict]
) -> dict[str, Scores]:
    """model -> item id -> item score, for every response (verdicts of one judge)."""
    verdicts = list(verdicts)
    single_judge(verdicts)
    by_unit = verdicts_by_unit(verdicts)
    table: dict[str, Scores] = defaultdict(dict)
    for model, item in answered(items, responses):
        table[model][item.id] = item_score(item, by_unit[model, item.id])
    return dict(table)


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
