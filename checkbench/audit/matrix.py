"""The verdict matrix of a run: every check (item position, check id) by judge, model and
sample, read from the store's columns (`RunStore.verdict_cells`) into numpy arrays."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from checkbench.store import RunStore


@dataclass(frozen=True)
class Checks:
    """The run's checks in item then checklist order: their item's position and id, their
    id, their number in the item's checklist (1-based), weight and their item's rule."""

    position: np.ndarray
    item_ids: list[str]
    check_ids: list[str]
    number: np.ndarray
    weight: list[float | None]
    rules: list[str]

    def __len__(self) -> int:
        return len(self.check_ids)

    @classmethod
    def of(cls, store: RunStore) -> Checks:
        position, item_ids, check_ids, number, weight, rules = [], [], [], [], [], []
        for at, (item_id, rule, checks, _) in enumerate(store.item_columns()):
            for k, (check_id, check_weight) in enumerate(json.loads(checks)):
                position.append(at)
                item_ids.append(item_id)
                check_ids.append(check_id)
                number.append(k + 1)
                weight.append(check_weight)
                rules.append(rule)
        return cls(
            np.array(position, dtype=np.int64),
            item_ids,
            check_ids,
            np.array(number, dtype=np.int64),
            weight,
            rules,
        )


@dataclass(frozen=True)
class VerdictMatrix:
    """`passed[j, c, m, s]`: judge j's verdict on check c of model m's sample s, 1.0 or 0.0,
    NaN when unscored or missing; `unscored` marks the verdicts given as unscored. The judge
    scored is judges[0]; verdicts on checks not in their item's checklist are left out."""

    checks: Checks
    judges: list[str]
    models: list[str]
    passed: np.ndarray
    unscored: np.ndarray

    @classmethod
    def of(cls, store: RunStore, judge: str) -> VerdictMatrix:
        checks = Checks.of(store)
        cells = store.verdict_cells()
        judges = [judge, *sorted({row[4] for row in cells} - {judge})]
        models = sorted({row[2] for row in cells} | set(store.models()))
        index = {
            key: c
            for c, key in enumerate(zip(checks.position.tolist(), checks.check_ids, strict=True))
        }
        judge_at = {name: j for j, name in enumerate(judges)}
        model_at = {name: m for m, name in enumerate(models)}
        coded = [
            (c, model_at[model], sample, judge_at[judge_id], -1 if passed is None else passed)
            for position, check_id, model, sample, judge_id, passed in cells
            if (c := index.get((position, check_id))) is not None
        ]
        rows = np.array(coded, dtype=np.int64).reshape(-1, 5)
        samples = int(rows[:, 2].max()) + 1 if len(rows) else 1
        shape = (len(judges), len(checks), len(models), samples)
        passed = np.full(shape, np.nan)
        unscored = np.zeros(shape, dtype=bool)
        at = (rows[:, 3], rows[:, 0], rows[:, 1], rows[:, 2])
        passed[at] = np.where(rows[:, 4] < 0, np.nan, rows[:, 4])
        unscored[at] = rows[:, 4] < 0
        return cls(checks, judges, models, passed, unscored)

    def model_rates(self, judge: int = 0) -> np.ndarray:
        """(checks, models): the share of a model's scored samples that passed the check,
        NaN when it has none."""
        scored = ~np.isnan(self.passed[judge])
        total = np.where(scored, self.passed[judge], 0.0).sum(axis=2)
        count = scored.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)
