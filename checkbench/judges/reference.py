"""A judge against a reference judge: per-check agreement, and what replacing the reference by
the judge does to the benchmark (model scores, their ranking, the largest per-model shift).

Both judges' verdicts are matched on (item, model, check). Agreement treats the reference's
verdicts as gold (stats.agreement: an unscored judge verdict is wrong, an unscored reference
verdict has no gold label and is counted). The ranking part scores each response the judges
both judged (at least one verdict each) under each judge's verdicts (scoring.score_responses,
each item's rule), takes every model's mean over those items, and correlates the two model
score vectors (Spearman, Kendall tau_b). Every interval comes from one cluster bootstrap over
items: a draw takes the items with replacement and recomputes all the figures from it.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.judges.human import load_human_verdicts
from checkbench.judges.samples import refuse_samples
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import UnscoredPolicy, score_responses
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.stats.agreement import VerdictAgreement, verdict_agreement
from checkbench.stats.estimate import Stat
from checkbench.store import RecordKind, RunStore

CALIBRATION_RECORD = RecordKind("calibration", dict[str, Any])
"""Record kind of a calibration artefact (judges.calibration), keyed by the calibrated judge:
kept as the artefact's JSON and read through `read_calibration`, which names another format or
version rather than a damaged row."""


class ModelShift(BaseModel):
    """One model's score (0-100) under the reference and under the judge, and the shift
    judge - reference; ranks are 1 = best, ties share their mean rank."""

    model: str
    items: int
    reference: Stat
    judge: Stat
    shift: Stat
    reference_rank: float
    judge_rank: float


class RankingEffect(BaseModel):
    """What replacing the reference judge by the judge does to the model scores."""

    policy: UnscoredPolicy
    items: int
    """Items with at least one response both judges judged (the bootstrap clusters)."""
    responses: int
    judge_unscored: int
    reference_unscored: int
    """Responses whose item score is unscored under each judge (zeroed or left out)."""
    models: list[ModelShift]
    spearman: Stat
    kendall_tau_b: Stat
    largest_shift: Stat | None = None
    """The shift (judge - reference, points 0-100) of the model whose score moves most: the
    same figure and interval as that model's row in `models`; None without models."""
    largest_shift_model: str | None = None


class ReferenceAgreement(BaseModel):
    """A judge's verdicts against a reference judge's: per check and for the benchmark.
    In `agreement`, `only_reference` counts verdicts only the reference has."""

    judge: str
    reference: str
    excluded_items: int = 0
    """Items left out, e.g. a calibrated judge's training items."""
    agreement: VerdictAgreement
    ranking: RankingEffect


REFERENCE_RECORD = RecordKind("reference_agreement", ReferenceAgreement)
"""Record kind of a judge's ReferenceAgreement in the run store, keyed by the judge."""


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from scipy import stats as sps  # deferred: scipy.stats costs ~1 s of CLI start-up

        return float(sps.spearmanr(x, y).statistic)


def _kendall(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from scipy import stats as sps  # deferred: scipy.stats costs ~1 s of CLI start-up

        return float(sps.kendalltau(x, y, variant="b").statistic)


def _table(
    scores: dict[str, dict[str, float | None]],
    models: Sequence[str],
    items: Sequence[str],
    policy: UnscoredPolicy,
) -> np.ndarray:
    """models x items item scores: NaN where the model has no such response, or where the
    item is unscored and the policy excludes it."""
    table = np.full((len(models), len(items)), np.nan)
    for m, model in enumerate(models):
        for i, item in enumerate(items):
            if item in scores.get(model, {}):
                value = scores[model][item]
                table[m, i] = (0.0 if policy == "zero" else np.nan) if value is None else value
    return table


def _means(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per draw (rows of weights = how often each item was drawn), each model's mean over its
    drawn items with a value: shape (draws, models); NaN where a model has none."""
    present = ~np.isnan(table)
    total = weights @ np.where(present, table, 0.0).T
    count = weights @ present.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)


def _figures(judge: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """[spearman, kendall] of one pair of model score vectors (fractions)."""
    ok = ~(np.isnan(judge) | np.isnan(reference))
    if not ok.all():
        return np.full(2, np.nan)
    return np.array([_spearman(judge, reference), _kendall(judge, reference)])


def _ranks(scores: np.ndarray) -> np.ndarray:
    from scipy import stats as sps  # deferred: scipy.stats costs ~1 s of CLI start-up

    return sps.rankdata(-np.nan_to_num(scores, nan=-np.inf))


def _weights(n: int, b: int, seed: int) -> np.ndarray:
    """B rows of how often each of n items is drawn (a cluster bootstrap over items)."""
    if n == 0:
        return np.zeros((0, 0))
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(b)]) * 1.0


def _unit(verdict: Verdict) -> tuple[str, str]:
    return verdict.model, verdict.item_id


def ranking_effect(
    items: Iterable[Item],
    responses: Iterable[Response],
    judge: Sequence[Verdict],
    reference: Sequence[Verdict],
    *,
    policy: UnscoredPolicy = "zero",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> RankingEffect:
    """Model scores under each judge over the responses both judged, their rank correlations
    and the largest shift, with a cluster bootstrap over items. An unscored response scores 0
    under policy "zero"; under "exclude" it leaves that judge's mean only."""
    units = {_unit(v) for v in judge} & {_unit(v) for v in reference}
    shared = [r for r in responses if _unit_of(r) in units]
    item_list = list(items)
    scored = [
        score_responses(item_list, shared, [v for v in side if _unit(v) in units])
        for side in (judge, reference)
    ]
    models = sorted(scored[1])
    item_ids = sorted({r.item_id for r in shared})
    tables = [_table(s, models, item_ids, policy) for s in scored]
    point = [_means(t, np.ones((1, len(item_ids))))[0] for t in tables]
    weights = _weights(len(item_ids), b, seed)
    boot = [_means(t, weights) for t in tables]
    figures = _figures(*point)
    boot_figures = np.array([_figures(j, r) for j, r in zip(*boot, strict=True)]).reshape(-1, 2)
    judge_ranks, reference_ranks = _ranks(point[0]), _ranks(point[1])
    shifts = []
    for m, model in enumerate(models):
        n = int(np.sum(~np.isnan(tables[1][m])))
        judge_m, reference_m = (
            Stat.from_draws(p[m] * 100, d[:, m] * 100, n, level)
            for p, d in zip(point, boot, strict=True)
        )
        shift = Stat.from_draws(
            (point[0][m] - point[1][m]) * 100, (boot[0][:, m] - boot[1][:, m]) * 100, n, level
        )
        shifts.append(
            ModelShift(
                model=model,
                items=n,
                reference=reference_m,
                judge=judge_m,
                shift=shift,
                reference_rank=float(reference_ranks[m]),
                judge_rank=float(judge_ranks[m]),
            )
        )
    gaps = np.abs(point[0] - point[1])
    largest = int(np.nanargmax(gaps)) if np.isfinite(gaps).any() else None
    return RankingEffect(
        policy=policy,
        items=len(item_ids),
        responses=len(shared),
        judge_unscored=_count_unscored(scored[0]),
        reference_unscored=_count_unscored(scored[1]),
        models=shifts,
        spearman=Stat.from_draws(figures[0], boot_figures[:, 0], len(models), level),
        kendall_tau_b=Stat.from_draws(figures[1], boot_figures[:, 1], len(models), level),
        largest_shift=shifts[largest].shift if largest is not None else None,
        largest_shift_model=models[largest] if largest is not None else None,
    )


def _unit_of(response: Response) -> tuple[str, str]:
    return response.model, response.item_id


def _count_unscored(scores: dict[str, dict[str, float | None]]) -> int:
    return sum(score is None for row in scores.values() for score in row.values())


def _one_judge(verdicts: Sequence[Verdict], side: str) -> str:
    found = {v.judge for v in verdicts}
    if len(found) != 1:
        names = ", ".join(sorted(found)) or "none"
        raise InputError(f"the {side} verdicts must come from one judge (found: {names})")
    return found.pop()


def compare_verdicts(
    items: Iterable[Item],
    responses: Iterable[Response],
    judge: Sequence[Verdict],
    reference: Sequence[Verdict],
    *,
    exclude_items: Collection[str] = (),
    policy: UnscoredPolicy = "zero",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> ReferenceAgreement:
    """ReferenceAgreement of two judges' verdict lists (each from one judge), leaving out
    the items in `exclude_items`."""
    names = _one_judge(judge, "judge"), _one_judge(reference, "reference")
    excluded = set(exclude_items)
    item_list = list(items)
    kept = [item for item in item_list if item.id not in excluded]
    judge = [v for v in judge if v.item_id not in excluded]
    reference = [v for v in reference if v.item_id not in excluded]
    return ReferenceAgreement(
        judge=names[0],
        reference=names[1],
        excluded_items=len(excluded & {item.id for item in item_list}),
        agreement=verdict_agreement(reference, judge, b=b, seed=seed, level=level),
        ranking=ranking_effect(
            kept, responses, judge, reference, policy=policy, b=b, seed=seed, level=level
        ),
    )


def training_items(store: RunStore, judge: str) -> set[str]:
    """The items a calibrated judge's calibration was fitted on (empty for other judges)."""
    artefact = store.records(CALIBRATION_RECORD, only=judge).get(judge, {})
    return set(artefact.get("train_items", []))


def load_reference_verdicts(
    path: str | Path, store: RunStore, name: str | None = None
) -> list[Verdict]:
    """A file of reference verdicts (JSONL lines {"item_id", "model", "check_id", "passed"},
    the human-verdict format), checked against the run; judge name `name` or "file:<name>"."""
    judge = name or f"file:{Path(path).name}"
    return [v.model_copy(update={"judge": judge}) for v in load_human_verdicts(path, store)]


def _verdicts_of(store: RunStore, judge: str, side: str) -> list[Verdict]:
    verdicts = store.verdicts(judge)
    if not verdicts:
        found = ", ".join(store.judges()) or "none"
        raise InputError(f"no verdicts by {side} judge {judge!r} (judges: {found})", field=side)
    return verdicts


def reference_verdicts_for(
    store: RunStore, reference: str | None, verdicts: Sequence[Verdict] | None
) -> list[Verdict]:
    """The reference's verdicts: those of judge `reference` in the run, or those given."""
    if (reference is None) == (verdicts is None):
        raise InputError(
            "name a reference judge or give reference verdicts (one of the two)",
            field="reference",
        )
    if verdicts is None:
        return _verdicts_of(store, reference or "", "reference")
    gold = list(verdicts)
    _one_judge(gold, "reference")
    return gold


def reference_agreement(
    store: RunStore,
    judge: str,
    reference: str | None = None,
    *,
    reference_verdicts: Sequence[Verdict] | None = None,
    policy: UnscoredPolicy = "zero",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    save: bool = True,
) -> ReferenceAgreement:
    """A judge of the run against a reference judge of the run (`reference`) or against given
    verdicts (e.g. `load_reference_verdicts`). A calibrated judge is measured on the items its
    calibration was not fitted on. Kept in the run (kind REFERENCE_RECORD) when `save`."""
    refuse_samples(store, "agreement")
    gold = reference_verdicts_for(store, reference, reference_verdicts)
    own = _verdicts_of(store, judge, "judge")
    training = training_items(store, judge) | training_items(store, gold[0].judge)
    result = compare_verdicts(
        store.items(),
        store.responses(),
        own,
        gold,
        exclude_items=training,
        policy=policy,
        b=b,
        seed=seed,
        level=level,
    )
    if save:
        store.put_record(REFERENCE_RECORD, judge, result)
    return result
