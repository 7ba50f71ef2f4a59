"""Scores from verdicts: item rules, means over items and tag groups with bootstrap intervals.

An item is unscored (None) when any of its checks has an unscored verdict or no verdict; the
caller chooses the policy: count it as 0 ("zero") or leave it out ("exclude"). Either way the
number of unscored items is reported beside every score.

Scores are shown on a 0-100 scale with 2 decimals, rounded as the FB-Bench authors do:
round(round(x, 4) * 100, 2).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from checkbench.schema import Item, Response, Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED, Estimate, macro_mean_ci, mean_ci
from checkbench.store import RunStore

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
    return rule_score(item.rule, [check.weight for check in item.checklist], results)


def rule_score(
    rule: str, weights: Sequence[float | None], results: Sequence[bool | int | None]
) -> float | None:
    """A score in [0, 1] from the checks' results (True/1, False/0 or None = unscored) in
    checklist order under the item's rule; None when any check is unscored or there is none."""
    if not results or any(result is None for result in results):
        return None
    if rule == "weighted":
        return sum(w or 0.0 for w, ok in zip(weights, results, strict=True) if ok)
    if rule == "any":
        return float(any(results))
    if rule == "all":
        return float(all(results))
    return sum(results) / len(results)  # type: ignore[arg-type]


# ---------------------------------------------------------------- many items


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


def as_column(scores: Sequence[float | None] | np.ndarray) -> np.ndarray:
    """Item scores as an array, NaN for unscored (None)."""
    if isinstance(scores, np.ndarray):
        return scores
    return np.array([np.nan if score is None else score for score in scores], dtype=float)


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


# ---------------------------------------------------------------- in columns, from a run store


@dataclass(frozen=True)
class ItemScores:
    """One model's item scores in columns: the positions (in the run's item order, ascending)
    of the items it answered and their scores, NaN where unscored."""

    positions: np.ndarray
    values: np.ndarray

    @classmethod
    def of(cls, scores: Scores, index: Mapping[str, int]) -> ItemScores:
        """The column form of item id -> score, positions from `index` (item id -> position)."""
        positions = np.array([index[item_id] for item_id in scores], dtype=np.int64)
        values = as_column(list(scores.values()))
        order = np.argsort(positions, kind="stable")
        return cls(positions[order], values[order])

    def at(self, position: int) -> float | None:
        """The score of the item at `position` (None when unscored or not answered)."""
        k = int(np.searchsorted(self.positions, position))
        if k == len(self.positions) or self.positions[k] != position:
            return None
        value = float(self.values[k])
        return None if math.isnan(value) else value

    def as_scores(self, ids: Sequence[str]) -> Scores:
        """item id -> score (None = unscored), in item order."""
        return {
            ids[p]: None if math.isnan(v) else v
            for p, v in zip(self.positions.tolist(), self.values.tolist(), strict=True)
        }


@dataclass(frozen=True)
class Checklists:
    """Every item's id, rule and (check id, weight) pairs by position: what item scores need,
    read from the store's columns (identical checklists are shared)."""

    ids: list[str]
    index: dict[str, int]
    rules: list[str]
    checks: list[tuple[tuple[str, float | None], ...]]

    @classmethod
    def of_store(cls, store: RunStore) -> Checklists:
        ids, rules, checks = [], [], []
        shared: dict[str, Any] = {}
        for item_id, rule, checklist, _ in store.item_columns():
            ids.append(item_id)
            rules.append(shared.setdefault(rule, rule))
            if checklist not in shared:
                shared[checklist] = tuple((c, w) for c, w in json.loads(checklist))
            checks.append(shared[checklist])
        return cls(ids, {item_id: p for p, item_id in enumerate(ids)}, rules, checks)

    def score(self, position: int, passed: Iterable[tuple[str, int | None]]) -> float | None:
        """The score of the item at `position` from its (check id, passed) verdicts."""
        checks = self.checks[position]
        results: list[int | None] = [None] * len(checks)
        slot = {check: k for k, (check, _) in enumerate(checks)}
        for check_id, ok in passed:
            if check_id not in slot:
                item_id = self.ids[position]
                raise ValueError(f"item {item_id}: verdict for unknown check {check_id!r}")
            results[slot[check_id]] = ok
        return rule_score(self.rules[position], [w for _, w in checks], results)


def store_scores(
    store: RunStore, judge: str, checklists: Checklists | None = None
) -> dict[str, ItemScores]:
    """model -> item scores of the judge's verdicts for every response of the run, models in
    name order: what `score_responses` gives for the store's items, responses and verdicts,
    read in columns instead of objects."""
    lists = checklists or Checklists.of_store(store)
    answered: dict[str, np.ndarray] = {}
    for item_id, model in store.response_units():
        if model not in answered:
            answered[model] = np.zeros(len(lists.ids), dtype=bool)
        answered[model][lists.index[item_id]] = True
    values = {model: np.full(len(lists.ids), np.nan) for model in answered}
    for (item_id, model), rows in groupby(store.verdict_rows(judge), key=itemgetter(0, 1)):
        position = lists.index.get(item_id)
        if position is None or model not in answered or not answered[model][position]:
            continue  # verdicts on no response are not scored
        score = lists.score(position, ((row[2], row[3]) for row in rows))
        if score is not None:
            values[model][position] = score
    return {
        model: ItemScores(np.flatnonzero(mask), values[model][mask])
        for model, mask in sorted(answered.items())
    }
