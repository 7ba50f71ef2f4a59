"""The FB-Bench leaderboard: EC, RM and Overall as macro means over (scenario, task) groups,
with breakdowns computed the same way, from verdicts or from the judgment files' stored scores.

Breakdowns follow the authors' analysis: every cell is a macro mean over task groups. Within
a slice (EC, RM, or all samples) and a facet value (e.g. a feedback type), take the mean score
of each (scenario, task) group present, then the mean of those means. A sample with several
feedback or deficiency types counts in each; the "all" cell of a task is the mean of its EC
and RM means. Intervals resample within each group, like the headline's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Literal

from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.fbbench.dataset import SCENARIOS
from checkbench.fbbench.judgments import record_facts
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import (
    GroupScore,
    Scores,
    UnscoredPolicy,
    answered,
    macro_facet_breakdown,
    macro_summarize,
    score_responses,
    single_judge,
)
from checkbench.stats import DEFAULT_B, DEFAULT_SEED

ScoreSource = Literal["verdicts", "stored"]

EC, RM = SCENARIOS["Error Correction"], SCENARIOS["Response Maintenance"]

BREAKDOWN_FACETS = ("task", "subtask", "feedback_type", "deficiency")
SLICES = (EC, RM, "all")
"""Breakdown slices: EC samples, RM samples, and all samples."""

Breakdowns = dict[str, dict[str, dict[str, GroupScore]]]
"""facet -> slice -> facet value -> score; empty slices and facets are left out."""


class FBBenchRow(BaseModel):
    """One model's FB-Bench headline scores (0-100, 2 decimals) with 95% intervals.
    `unjudged_checks` counts checks the judge gave no entry for, counted as not met."""

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
    unjudged_checks: int = 0


class FBBenchLeaderboard(BaseModel):
    """Rows sorted by overall score (best first), per-model breakdowns, and for imported
    judgment files the number of records whose verdicts give another score than the file's
    (`score_mismatches`, None when the run holds no stored scores of this judge)."""

    judge: str | None
    policy: UnscoredPolicy
    source: ScoreSource
    rows: list[FBBenchRow]
    breakdowns: dict[str, Breakdowns]
    score_mismatches: int | None = None


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


def _group(item: Item) -> tuple[str, str]:
    """The (scenario, task) group every FB-Bench mean is taken over."""
    return _only(item, "scenario"), _only(item, "task")


def _stored_table(items: Iterable[Item], responses: Iterable[Response]) -> dict[str, Scores]:
    """model -> item id -> the judgment file's score (None where the judgment failed)."""
    table: dict[str, Scores] = defaultdict(dict)
    by_unit = {(r.model, r.item_id): r for r in responses}
    for model, item in answered(items, by_unit.values()):
        facts = record_facts(by_unit[model, item.id])
        if facts is None:
            raise InputError(
                f"no stored score for {model} on item {item.id}: stored scores come with "
                "imported FB-Bench judgment files (`checkbench import fb-bench-judgments`)"
            )
        table[model][item.id] = facts.stored_score
    return dict(table)


def _headline(
    items: Sequence[Item], scores: Scores, policy: UnscoredPolicy, b: int, seed: int
) -> tuple[GroupScore, GroupScore, GroupScore]:
    """EC, RM and Overall: means of (scenario, task) group means, as the authors compute."""
    groups: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for item in items:
        if item.id in scores:
            groups[_group(item)].append(scores[item.id])
    summary = partial(macro_summarize, policy=policy, b=b, seed=seed)
    ec = [group for (scenario, _), group in groups.items() if scenario == EC]
    rm = [group for (scenario, _), group in groups.items() if scenario == RM]
    return summary(ec), summary(rm), summary(list(groups.values()))


def fbbench_breakdowns(
    items: Sequence[Item],
    scores: Scores,
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> Breakdowns:
    """One model's breakdown cells, each a macro mean over (scenario, task) groups."""
    groups = {item.id: _group(item) for item in items}
    result: Breakdowns = {}
    for facet in BREAKDOWN_FACETS:
        slices = {}
        for name in SLICES:
            members = [item for item in items if name in ("all", groups[item.id][0])]
            table = macro_facet_breakdown(
                members, scores, facet, lambda item: groups[item.id], policy, b=b, seed=seed
            )
            if table:
                slices[name] = table
        if slices:
            result[facet] = slices
    return result


def _row(
    model: str, ec: GroupScore, rm: GroupScore, overall: GroupScore, unjudged: int
) -> FBBenchRow:
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
        unjudged_checks=unjudged,
    )


def _unjudged_checks(responses: Iterable[Response], judge: str | None) -> dict[str, int]:
    """model -> checks of this judge's imported records that had no judgment entry."""
    counts: dict[str, int] = defaultdict(int)
    for response in responses:
        facts = record_facts(response)
        if facts is not None and facts.judge == judge:
            counts[response.model] += len(facts.unjudged)
    return counts


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
    computed = score_responses(items, responses, verdicts)
    table = _stored_table(items, responses) if source == "stored" else computed
    unjudged = _unjudged_checks(responses, judge)
    rows = [
        _row(model, *_headline(items, scores, policy, b, seed), unjudged[model])
        for model, scores in table.items()
    ]
    rows.sort(key=lambda row: (row.overall is None, -(row.overall or 0.0), row.model))
    breakdowns = {
        row.model: fbbench_breakdowns(items, table[row.model], policy, b=b, seed=seed)
        for row in rows
    }
    mismatches = _mismatches(responses, computed, judge)
    return FBBenchLeaderboard(
        judge=judge,
        policy=policy,
        source=source,
        rows=rows,
        breakdowns=breakdowns,
        score_mismatches=None if mismatches is None else len(mismatches),
    )


def _same_score(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, abs_tol=tolerance)


def _mismatches(
    responses: Iterable[Response],
    computed: dict[str, Scores],
    judge: str | None,
    tolerance: float = 1e-6,
) -> list[ScoreMismatch] | None:
    """Imported records of this judge whose stored score differs from the verdicts' score;
    None when no response holds a stored score of this judge."""
    found: list[ScoreMismatch] | None = None
    for response in responses:
        facts = record_facts(response)
        if facts is None or facts.judge != judge:
            continue
        if found is None:
            found = []
        recomputed = computed[response.model][response.item_id]
        if not _same_score(facts.stored_score, recomputed, tolerance):
            found.append(
                ScoreMismatch(
                    model=response.model,
                    item_id=response.item_id,
                    stored=facts.stored_score,
                    recomputed=recomputed,
                )
            )
    return found


def fbbench_score_mismatches(
    items: Iterable[Item], responses: Iterable[Response], verdicts: Iterable[Verdict]
) -> list[ScoreMismatch]:
    """Imported records whose stored score differs from the score recomputed from their
    verdicts (e.g. a judgment entry that answers no check, or a weight the judge changed)."""
    responses = list(responses)
    verdicts = list(verdicts)
    computed = score_responses(items, responses, verdicts)
    return _mismatches(responses, computed, single_judge(verdicts)) or []


def is_fbbench_run(items: Sequence[Item]) -> bool:
    """Whether every item carries the one scenario (EC or RM) and the one task that the FB-Bench
    leaderboard groups by."""
    return bool(items) and all(
        item.tag("scenario") in ([EC], [RM]) and len(item.tag("task")) == 1 for item in items
    )
