"""The FB-Bench leaderboard: EC, RM and Overall as macro means over (scenario, task) groups,
with breakdowns, from verdicts or from the judgment files' stored scores."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Literal

from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.fbbench.dataset import SCENARIOS
from checkbench.fbbench.judgments import STORED_SCORES
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import (
    GroupScore,
    Scores,
    UnscoredPolicy,
    answered,
    facet_breakdown,
    item_score,
    macro_summarize,
    score_responses,
    single_judge,
    verdicts_by_unit,
)
from checkbench.stats import DEFAULT_B, DEFAULT_SEED

ScoreSource = Literal["verdicts", "stored"]

EC, RM = SCENARIOS["Error Correction"], SCENARIOS["Response Maintenance"]

BREAKDOWN_FACETS: dict[str, tuple[str, ...]] = {
    "all": ("task", "subtask"),
    EC: ("task", "subtask", "feedback_type", "deficiency"),
    RM: ("task", "subtask", "feedback_type"),
}
"""Breakdowns per scope: feedback types differ between EC and RM, deficiency is EC only."""

Breakdown = dict[str, dict[str, dict[str, GroupScore]]]
"""scope ("all" | "EC" | "RM") -> facet -> value -> score."""


class FBBenchRow(BaseModel):
    """One model's FB-Bench headline scores (0-100, 2 decimals) with 95% intervals."""

    model: str
    error_correction: float | None
    error_correction_ci: tuple[float, float] | None
    error_correction_n: int
    error_correction_unscored: int
    response_maintenance: float | None
    response_maintenance_ci: tuple[float, float] | None
    response_maintenance_n: int
    response_maintenance_unscored: int
    overall: float | None
    overall_ci: tuple[float, float] | None
    n: int
    unscored: int


class FBBenchLeaderboard(BaseModel):
    """Rows sorted by overall score (best first) and per-model breakdowns."""

    judge: str | None
    policy: UnscoredPolicy
    source: ScoreSource
    rows: list[FBBenchRow]
    breakdowns: dict[str, Breakdown]


class ScoreMismatch(BaseModel):
    """A judgment file's stored score that differs from the score recomputed from verdicts."""

    model: str
    item_id: str
    stored: float | None
    recomputed: float | None


def _only(item: Item, facet: str) -> str:
    """The item's single value of an FB-Bench facet; other benchmarks are told where to go."""
    values = item.tag(facet)
    if len(values) != 1:
        raise InputError(
            f"item {item.id} has {values or 'no'} '{facet}' tag(s); the FB-Bench leaderboard "
            "needs one scenario (EC or RM) and one task per item: for other benchmarks use "
            "`checkbench score RUN`",
            field=f"tags.{facet}",
        )
    return values[0]


def _stored_table(items: Iterable[Item], responses: Iterable[Response]) -> dict[str, Scores]:
    """model -> item id -> the judgment file's score (None where the judgment failed)."""
    table: dict[str, Scores] = defaultdict(dict)
    for model, item in answered(items, responses):
        stored = item.meta.get(STORED_SCORES, {})
        if model not in stored:
            raise ValueError(f"no stored score for {model} on {item.id}")
        table[model][item.id] = stored[model]
    return dict(table)


def _headline(
    items: Sequence[Item], scores: Scores, policy: UnscoredPolicy, b: int, seed: int
) -> tuple[GroupScore, GroupScore, GroupScore]:
    """EC, RM and Overall: means of (scenario, task) group means, as the authors compute."""
    groups: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for item in items:
        if item.id in scores:
            groups[_only(item, "scenario"), _only(item, "task")].append(scores[item.id])
    summary = partial(macro_summarize, policy=policy, b=b, seed=seed)
    ec = [group for (scenario, _), group in groups.items() if scenario == EC]
    rm = [group for (scenario, _), group in groups.items() if scenario == RM]
    return summary(ec), summary(rm), summary(list(groups.values()))


def _breakdown(
    items: Sequence[Item], scores: Scores, policy: UnscoredPolicy, b: int, seed: int
) -> Breakdown:
    result: Breakdown = {}
    for scope, facets in BREAKDOWN_FACETS.items():
        members = [item for item in items if scope == "all" or scope in item.tag("scenario")]
        tables = {
            facet: facet_breakdown(members, scores, facet, policy, b=b, seed=seed)
            for facet in facets
        }
        result[scope] = {facet: table for facet, table in tables.items() if table}
    return result


def _row(model: str, ec: GroupScore, rm: GroupScore, overall: GroupScore) -> FBBenchRow:
    return FBBenchRow(
        model=model,
        error_correction=ec.score,
        error_correction_ci=ec.ci,
        error_correction_n=ec.n,
        error_correction_unscored=ec.unscored,
        response_maintenance=rm.score,
        response_maintenance_ci=rm.ci,
        response_maintenance_n=rm.n,
        response_maintenance_unscored=rm.unscored,
        overall=overall.score,
        overall_ci=overall.ci,
        n=overall.n,
        unscored=overall.unscored,
    )


def fbbench_leaderboard(
    items: Iterable[Item],
    responses: Iterable[Response],
    verdicts: Iterable[Verdict],
    *,
    policy: UnscoredPolicy = "zero",
    source: ScoreSource = "verdicts",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> FBBenchLeaderboard:
    """The FB-Bench leaderboard of one judge's verdicts.

    source "verdicts" (default) rescores every response from its verdicts, so the same code
    scores published judgments and checkbench's own; "stored" uses the judgment files'
    `score` field, which is what the authors' table averaged. With policy "zero" (the
    published convention) failed judgments count as 0.
    """
    items = list(items)
    responses = list(responses)
    verdicts = list(verdicts)
    judge = single_judge(verdicts)
    if source == "stored":
        table = _stored_table(items, responses)
    else:
        table = score_responses(items, responses, verdicts)
    rows = [
        _row(model, *_headline(items, scores, policy, b, seed)) for model, scores in table.items()
    ]
    rows.sort(key=lambda row: (row.overall is None, -(row.overall or 0.0), row.model))
    breakdowns = {row.model: _breakdown(items, table[row.model], policy, b, seed) for row in rows}
    return FBBenchLeaderboard(
        judge=judge, policy=policy, source=source, rows=rows, breakdowns=breakdowns
    )


def _same_score(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, abs_tol=tolerance)


def fbbench_score_mismatches(
    items: Iterable[Item], verdicts: Iterable[Verdict], *, tolerance: float = 1e-6
) -> list[ScoreMismatch]:
    """Records whose stored score differs from the score recomputed from their verdicts
    (e.g. a judgement key that matches no check, or a weight the judge changed)."""
    by_unit = verdicts_by_unit(verdicts)
    mismatches = []
    for item in items:
        for model, stored in item.meta.get(STORED_SCORES, {}).items():
            recomputed = item_score(item, by_unit[model, item.id])
            if not _same_score(stored, recomputed, tolerance):
                mismatch = ScoreMismatch(
                    model=model, item_id=item.id, stored=stored, recomputed=recomputed
                )
                mismatches.append(mismatch)
    return mismatches
