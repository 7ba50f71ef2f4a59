"""Item scores from verdicts: an item's rule over its checks' results, the mean over a model's
samples of an item, per response or read in columns from a run store.

An item is unscored (None, NaN in a column) when any of its checks has an unscored verdict or
no verdict. A model that answered an item several times (`--samples K`) scores it by the mean of
its samples' scores, before any bootstrap: samples are not a resampling level. An unscored sample
makes its item unscored, as an unscored check does.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import islice
from typing import Any

import numpy as np

from checkbench.schema import Item, Response, Verdict
from checkbench.scoring.refined import refine_rows
from checkbench.store import RunStore

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


def single_judge(verdicts: Iterable[Verdict]) -> str | None:
    judges = {verdict.judge for verdict in verdicts}
    if len(judges) > 1:
        raise ValueError(f"verdicts from several judges {sorted(judges)}: score one at a time")
    return next(iter(judges), None)


def verdicts_by_unit(verdicts: Iterable[Verdict]) -> dict[tuple[str, str, int], list[Verdict]]:
    """Verdicts by (model, item id, sample)."""
    by_unit: dict[tuple[str, str, int], list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        by_unit[verdict.model, verdict.item_id, verdict.sample].append(verdict)
    return by_unit


def answered(
    items: Iterable[Item], responses: Iterable[Response]
) -> Iterator[tuple[str, Item, int]]:
    """(model, item, sample) for every response; each model answers each sample of an item
    at most once."""
    by_id = {item.id: item for item in items}
    seen: set[tuple[str, str, int]] = set()
    for response in responses:
        item = by_id.get(response.item_id)
        if item is None:
            raise ValueError(f"response of {response.model} to unknown item {response.item_id}")
        unit = (response.model, item.id, response.sample)
        if unit in seen:
            raise ValueError(f"several responses of {response.model} to {item.id}")
        seen.add(unit)
        yield unit[0], item, unit[2]


def sample_mean(scores: Sequence[float | None]) -> float | None:
    """An item's score from its samples' scores: their mean, None when any is unscored."""
    if any(score is None for score in scores):
        return None
    return sum(scores) / len(scores)  # type: ignore[arg-type]


def score_responses(
    items: Iterable[Item], responses: Iterable[Response], verdicts: Iterable[Verdict]
) -> dict[str, Scores]:
    """model -> item id -> item score (the mean over its samples), for every response
    (verdicts of one judge)."""
    verdicts = list(verdicts)
    single_judge(verdicts)
    by_unit = verdicts_by_unit(verdicts)
    samples: dict[str, dict[str, list[float | None]]] = defaultdict(lambda: defaultdict(list))
    for model, item, sample in answered(items, responses):
        samples[model][item.id].append(item_score(item, by_unit[model, item.id, sample]))
    return {
        model: {item_id: sample_mean(scores) for item_id, scores in by_item.items()}
        for model, by_item in samples.items()
    }


def most_samples(responses: Iterable[Response]) -> dict[str, int]:
    """model -> the most samples it gave one item (K after a run with `--samples K`)."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for response in responses:
        counts[response.model, response.item_id] += 1
    most: dict[str, int] = defaultdict(int)
    for (model, _), count in counts.items():
        most[model] = max(most[model], count)
    return dict(most)


def as_column(scores: Sequence[float | None] | np.ndarray) -> np.ndarray:
    """Item scores as an array, NaN for unscored (None)."""
    if isinstance(scores, np.ndarray):
        return scores
    return np.array([np.nan if score is None else score for score in scores], dtype=float)


# ---------------------------------------------------------------- in columns, from a run store


@dataclass(frozen=True)
class ItemScores:
    """One model's item scores in columns: the positions (in the run's item order, ascending)
    of the items it answered and their scores, NaN where unscored; `samples`: the most
    samples it gave one item."""

    positions: np.ndarray
    values: np.ndarray
    samples: int = 1

    @classmethod
    def of(cls, scores: Scores, index: Mapping[str, int], samples: int = 1) -> ItemScores:
        """The column form of item id -> score, positions from `index` (item id -> position)."""
        positions = np.array([index[item_id] for item_id in scores], dtype=np.int64)
        values = as_column(list(scores.values()))
        order = np.argsort(positions, kind="stable")
        return cls(positions[order], values[order], samples)

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


def store_scores(
    store: RunStore, judge: str, checklists: Mapping[int, str] | None = None
) -> dict[str, ItemScores]:
    """model -> item scores of the judge's verdicts for every response of the run, models in
    name order: what `score_responses` gives for the store's items, responses and verdicts,
    read a row per sample (`sample_verdicts`), each distinct (rule, checklist, verdicts)
    scored once. Positions are the store's item positions (0, 1, ... in item order). With
    `checklists` (item position -> kept pairs, `refined.refine_rows`), the refined items are
    scored by their kept checks."""
    rows = refine_rows(store.sample_verdicts(judge), checklists)
    score = cache(_sample_score)
    found = [score(rule, checks, verdicts) for _, _, rule, checks, verdicts in rows]
    stray = next((k for k, (_, unknown) in enumerate(found) if unknown is not None), None)
    if stray is not None:
        item_id = next(islice(store.item_columns(), rows[stray][0], None))[0]
        raise ValueError(f"item {item_id}: verdict for unknown check {found[stray][1]!r}")
    return column_scores(rows, [value for value, _ in found])


def column_scores(
    rows: Sequence[Sequence[Any]], scores: Sequence[float | None]
) -> dict[str, ItemScores]:
    """model -> item scores, models in name order, from sample rows (item position, model,
    ...: `sample_verdicts`'s, by position then model then sample) and their samples' scores."""
    if not rows:
        return {}
    values = np.array(scores, dtype=float)  # None (unscored) is NaN
    names, model_code = np.unique(
        np.array([row[1] for row in rows], dtype=object), return_inverse=True
    )
    positions = np.array([row[0] for row in rows], dtype=np.int64)
    return {
        name: _sample_means(positions[model_code == code], values[model_code == code])
        for code, name in enumerate(names.tolist())
    }


def _sample_score(rule: str, checks: str, verdicts: str) -> tuple[float | None, str | None]:
    """A sample's score from its item's rule and checks and its verdicts as stored (see
    `sample_verdicts`), and the first verdict's check id not in the checklist (None if none)."""
    pairs = json.loads(checks)
    passed = json.loads(verdicts)
    known = [check for check, _ in pairs]
    unknown = sorted(set(passed).difference(known))
    results = [passed.get(check) for check in known]
    return rule_score(rule, [weight for _, weight in pairs], results), next(iter(unknown), None)


def _sample_means(positions: np.ndarray, values: np.ndarray) -> ItemScores:
    """One model's item scores from its samples' (positions ascending, a position once per
    sample): the mean over an item's samples, added in sample order; NaN when one is."""
    items, first, counts = np.unique(positions, return_index=True, return_counts=True)
    total = np.zeros(len(items))
    for k in range(int(counts.max())):
        has = counts > k
        total[has] += values[first[has] + k]
    return ItemScores(items, total / counts, int(counts.max()))
