"""The FB-Bench leaderboard: EC, RM and Overall as macro means over (scenario, task) groups,
with breakdowns computed the same way, from verdicts or from the judgment files' stored scores.

The arithmetic is in `means`, over columns; this module reads them from objects (judgment
files, tests) or from a run store (`store_leaderboard`), the same way. Breakdowns follow the
authors' analysis: every cell is a macro mean over task groups. Within
a slice (EC, RM, or all samples) and a facet value (e.g. a feedback type), take the mean score
of each (scenario, task) group present, then the mean of those means. A sample with several
feedback or deficiency types counts in each; the "all" cell of a task is the mean of its EC
and RM means. Intervals resample within each group, like the headline's.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from checkbench.choices import ScoreSource
from checkbench.errors import InputError
from checkbench.fbbench.judgments import record_facts
from checkbench.fbbench.means import BREAKDOWN_FACETS as BREAKDOWN_FACETS
from checkbench.fbbench.means import EC, RM, Breakdowns, Layout, fbbench_breakdowns, headline
from checkbench.fbbench.means import SLICES as SLICES
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import (
    GroupScore,
    ItemScores,
    ScoreLayout,
    Scores,
    UnscoredPolicy,
    most_samples,
    score_responses,
    single_judge,
    store_scores,
)
from checkbench.scoring.refined import chosen_checklists
from checkbench.scoring.settings import ScoringSettings
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.store import ItemHead, RunStore


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
    samples: int = Field(default=1, exclude_if=lambda samples: samples == 1)
    """The most answers the model gave one item (`--samples K`), each item scored by the mean
    of its samples; left out of the JSON when 1."""


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


def _row(
    model: str, ec: GroupScore, rm: GroupScore, overall: GroupScore, unjudged: int, samples: int
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
        samples=samples,
    )


def _stored_scores(
    index: Mapping[str, int], units: Iterable[tuple[str, str]], imported: Iterable[Response]
) -> dict[str, ItemScores]:
    """model -> the judgment files' scores (None where the judgment failed) of the responses
    `units` (item id, model); `imported` are the responses that carry meta."""
    facts = {(r.model, r.item_id): record_facts(r) for r in imported}
    table: dict[str, Scores] = defaultdict(dict)
    for item_id, model in units:
        found = facts.get((model, item_id))
        if found is None:
            raise InputError(
                f"no stored score for {model} on item {item_id}: stored scores come with "
                "imported FB-Bench judgment files (`checkbench fbbench import`)"
            )
        table[model][item_id] = found.stored_score
    return {model: ItemScores.of(scores, index) for model, scores in table.items()}


def _unjudged_checks(responses: Iterable[Response], judge: str | None) -> dict[str, int]:
    """model -> checks of this judge's imported records that had no judgment entry."""
    counts: dict[str, int] = defaultdict(int)
    for response in responses:
        facts = record_facts(response)
        if facts is not None and facts.judge == judge:
            counts[response.model] += len(facts.unjudged)
    return counts


@dataclass(frozen=True)
class _Run:
    """What a leaderboard is computed from, whatever it was read from: the items' ids by
    position and their layout (built when needed), every response as (item id, model), the
    responses that carry meta, and the judge's item scores."""

    ids: Sequence[str]
    layout: Callable[[], Layout]
    units: Callable[[], Iterable[tuple[str, str]]]
    imported: list[Response]
    judge: str | None
    computed: dict[str, ItemScores]


def _leaderboard(
    run: _Run,
    policy: UnscoredPolicy,
    source: ScoreSource,
    b: int,
    seed: int,
    breakdowns: bool = True,
) -> FBBenchLeaderboard:
    index = {item_id: position for position, item_id in enumerate(run.ids)}
    table = _stored_scores(index, run.units(), run.imported) if source == "stored" else run.computed
    rows: list[FBBenchRow] = []
    cells: dict[str, Breakdowns] = {}
    if table:
        layout = run.layout()
        unjudged = _unjudged_checks(run.imported, run.judge)
        rows = [
            _row(model, *headline(layout, scores, policy, b, seed), unjudged[model], scores.samples)
            for model, scores in table.items()
        ]
        rows.sort(key=lambda row: (row.overall is None, -(row.overall or 0.0), row.model))
        cells = {
            row.model: fbbench_breakdowns(layout, table[row.model], policy, b=b, seed=seed)
            for row in rows
            if breakdowns
        }
    mismatches = _mismatches(run.imported, run.computed, index, run.judge)
    return FBBenchLeaderboard(
        judge=run.judge,
        policy=policy,
        source=source,
        rows=rows,
        breakdowns=cells,
        score_mismatches=None if mismatches is None else len(mismatches),
    )


def _objects_run(
    items: Iterable[Item], responses: Iterable[Response], verdicts: Iterable[Verdict]
) -> _Run:
    items, responses, verdicts = list(items), list(responses), list(verdicts)
    index = {item.id: position for position, item in enumerate(items)}
    computed = score_responses(items, responses, verdicts)
    samples = most_samples(responses)
    return _Run(
        ids=[item.id for item in items],
        layout=lambda: Layout.of((item.id, item.tags) for item in items),
        units=lambda: ((r.item_id, r.model) for r in responses),
        imported=[r for r in responses if r.meta],
        judge=single_judge(verdicts),
        computed={
            model: ItemScores.of(scores, index, samples[model])
            for model, scores in computed.items()
        },
    )


def _store_run(store: RunStore, judge: str, checklists: Mapping[int, str] | None) -> _Run:
    return _Run(
        ids=[item_id for item_id, *_ in store.item_columns()],
        layout=lambda: Layout.of_store(store),
        units=store.response_units,
        imported=store.responses_with_meta(),
        judge=judge,
        computed=store_scores(store, judge, checklists),
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
    return _leaderboard(_objects_run(items, responses, verdicts), policy, source, b, seed)


def store_leaderboard(
    store: RunStore,
    judge: str,
    *,
    policy: UnscoredPolicy = "zero",
    source: ScoreSource = "verdicts",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    checklists: Mapping[int, str] | None = None,
    breakdowns: bool = True,
) -> FBBenchLeaderboard:
    """`fbbench_leaderboard` of a run store's items, responses and `judge`'s verdicts, read in
    columns: no item, response or verdict body is parsed but those of imported records. With
    `checklists` (`scoring.refined`), the refined items are scored by their kept checks;
    without `breakdowns`, the headline only."""
    run = _store_run(store, judge, checklists)
    return _leaderboard(run, policy, source, b, seed, breakdowns)


def score_run(
    store: RunStore,
    judge: str,
    settings: ScoringSettings | None = None,
    *,
    checklists: Mapping[int, str] | None = None,
    headline: bool = False,
) -> FBBenchLeaderboard:
    """The leaderboard of a run as `settings` score it (None: the defaults): the run scorer's
    `score` (see `registry.RunScorer`); `checklists` over `settings.checklist`, and with
    `headline`, without breakdowns."""
    s = settings or ScoringSettings()
    return store_leaderboard(
        store,
        judge,
        policy=s.policy,
        source=s.source,
        seed=s.seed,
        checklists=checklists if checklists is not None else chosen_checklists(store, s.checklist),
        breakdowns=not headline,
    )


def _same_score(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, abs_tol=tolerance)


def _mismatches(
    imported: Iterable[Response],
    computed: dict[str, ItemScores],
    index: Mapping[str, int],
    judge: str | None,
    tolerance: float = 1e-6,
) -> list[ScoreMismatch] | None:
    """Imported records of this judge whose stored score differs from the verdicts' score;
    None when no response holds a stored score of this judge."""
    found: list[ScoreMismatch] | None = None
    for response in imported:
        facts = record_facts(response)
        if facts is None or facts.judge != judge:
            continue
        if found is None:
            found = []
        recomputed = computed[response.model].at(index[response.item_id])
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
    run = _objects_run(items, responses, verdicts)
    index = {item_id: position for position, item_id in enumerate(run.ids)}
    return _mismatches(run.imported, run.computed, index, run.judge) or []


def is_fbbench_tags(tags: Iterable[Mapping[str, list[str]]]) -> bool:
    """Whether there are items and every one carries the one scenario (EC or RM) and the one
    task that the FB-Bench leaderboard groups by."""
    found = False
    for item_tags in tags:
        found = True
        if item_tags.get("scenario") not in ([EC], [RM]) or len(item_tags.get("task", [])) != 1:
            return False
    return found


def is_fbbench_run(items: Iterable[Item | ItemHead]) -> bool:
    """`is_fbbench_tags` of these items."""
    return is_fbbench_tags(item.tags for item in items)


def is_fbbench_store(store: RunStore) -> bool:
    """`is_fbbench_tags` of a run store's items, read from its columns."""
    return is_fbbench_tags(json.loads(tags) for *_, tags in store.item_columns())


def score_layout(store: RunStore) -> ScoreLayout:
    """How the leaderboard weighs the run's items: Overall is the mean of the (scenario, task)
    group means, EC and RM the means over their groups, breakdowns by `BREAKDOWN_FACETS`."""
    layout = Layout.of_store(store)
    parts = {"error_correction": layout.slices[EC], "response_maintenance": layout.slices[RM]}
    facets = {
        facet: {value: np.unique(positions) for value, positions in by_value.items()}
        for facet, by_value in layout.facets.items()
    }
    return ScoreLayout(layout.group, "zero", parts, facets)
