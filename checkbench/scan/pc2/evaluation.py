"""A PC^2 run over a run store: criteria for every answered item, then every response graded
(pointwise) and every pair of responses in both orders (pairwise), each stored as a record and
reused on a rerun; then the summary, with agreement with human preferences."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Any, TypeVar

from pydantic import BaseModel

from checkbench.judges.samples import refuse_samples
from checkbench.llm.base import ChatBackend
from checkbench.scan.pc2.agreement import (
    HumanPreference,
    PairAccuracy,
    by_item,
    human_accuracy,
    position_report,
    win_counts,
)
from checkbench.scan.pc2.criteria import TOTAL_WEIGHT, CriteriaSet, PC2Settings, derive_criteria
from checkbench.scan.pc2.grading import PointScore, grade_pair, grade_points
from checkbench.schema import Item, PairVerdict, Response
from checkbench.scoring import GroupScore, summarize
from checkbench.stats.preference import by_scores, two_order_prefer
from checkbench.stats.ranking import PositionReport
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import RunTally, StageRun, StageSummary
from checkbench.store import RecordKind, RunStore

CRITERIA_KIND = RecordKind("pc2.criteria", dict[str, Any])
"""An item's derived criteria ({"criteria": CriteriaSet JSON, ...}) or {"problem": ...}."""
POINT_KIND = RecordKind("pc2.pointwise", PointScore)
PAIR_KIND = RecordKind("pc2.pairwise", PairVerdict)
NO_CRITERIA = "no criteria for this item"
R = TypeVar("R")


class PC2Report(BaseModel):
    """Everything a PC^2 run produced, summarized."""

    judge: str
    items: int
    criteria_failed: int
    criteria_rescaled: int
    pointwise: dict[str, GroupScore]
    pairwise: dict[str, dict[str, int]]
    position: PositionReport | None
    human: dict[str, PairAccuracy]


def judge_id(judge: str, aux: Sequence[str]) -> str:
    """The PC^2 judge's identity: the judge model and the auxiliary models that shaped it."""
    return f"pc2:{judge}|aux={'+'.join(aux)}"


@dataclass(frozen=True)
class PC2Result:
    """All grades of a run, the summary report and the stage's call counts."""

    criteria: dict[str, CriteriaSet | None]
    pointwise: list[PointScore]
    pairwise: list[PairVerdict]
    report: PC2Report
    summary: StageSummary
    tally: RunTally | None = None
    """What the store says of the stage's calls, for the CLI to print (set by the API)."""


@dataclass(frozen=True)
class _Job:
    """One grading: pointwise (one response) or one order of a pair."""

    kind: RecordKind[PointScore] | RecordKind[PairVerdict]
    shown: tuple[Response, ...]
    run: Callable[[], Awaitable[PointScore | PairVerdict]]

    def key(self, judge: str) -> str:
        return "|".join([judge, self.shown[0].item_id, *(r.model for r in self.shown)])


def _criteria_of(record: dict[str, Any]) -> CriteriaSet | None:
    return CriteriaSet.model_validate(record["criteria"]) if "criteria" in record else None


def _done(records: Mapping[str, R]) -> dict[str, R]:
    """The records that succeeded; failed ones are tried again (their calls replay cached)."""
    return {key: value for key, value in records.items() if not _problem(value)}


def _problem(record: dict[str, Any] | PointScore | PairVerdict) -> str | None:
    if isinstance(record, dict):
        return record.get("problem")
    return record.problem if isinstance(record, PointScore) else None


async def pc2_evaluate(
    store: RunStore,
    judge: ChatBackend,
    aux: Sequence[ChatBackend],
    *,
    settings: PC2Settings | None = None,
    preferences: Sequence[HumanPreference] = (),
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> PC2Result:
    """Derive criteria for every answered item, then grade every response (pointwise) and
    every pair of responses in both orders (pairwise); rerunning resumes."""
    refuse_samples(store, "scan pc2")
    settings = settings or PC2Settings()
    stage = StageRun.begin(store, caller, progress)
    judge_model, aux_models = stage.model(judge), [stage.model(backend) for backend in aux]
    name = judge_id(judge.name, [backend.name for backend in aux])
    items = {item.id: item for item in store.items()}
    responses: dict[str, list[Response]] = defaultdict(list)
    for response in store.responses():
        responses[response.item_id].append(response)

    derived = _done(store.records(CRITERIA_KIND))
    todo = [i for i in responses if f"{name}|{i}" not in derived]

    async def derive(item_id: str) -> None:
        record = await derive_criteria(judge_model, aux_models, items[item_id], settings)
        store.put_record(CRITERIA_KIND, f"{name}|{item_id}", record)

    await stage.each("pc2: criteria", todo, judge.max_concurrency, derive)
    records = store.records(CRITERIA_KIND)
    criteria = {i: _criteria_of(records[f"{name}|{i}"]) for i in responses}

    async def point(item: Item, response: Response) -> PointScore:
        known = criteria[item.id]
        if known is None:
            return PointScore(
                item_id=item.id, model=response.model, score=None, problem=NO_CRITERIA
            )
        return await grade_points(judge_model, settings, item, known, response)

    async def pair(item: Item, first: Response, second: Response) -> PairVerdict:
        known = criteria[item.id]
        if known is None:
            return PairVerdict(
                item_id=item.id,
                judge=name,
                a=first.model,
                b=second.model,
                winner=None,
                reason=f"unscored: {NO_CRITERIA}",
            )
        return await grade_pair(judge_model, settings, name, item, known, first, second)

    jobs: list[_Job] = []
    for item_id, answered in responses.items():
        item = items[item_id]
        if settings.mode != "pairwise":
            jobs += [_Job(POINT_KIND, (r,), partial(point, item, r)) for r in answered]
        if settings.mode != "pointwise":
            for a, b in combinations(sorted(answered, key=lambda r: r.model), 2):
                jobs.append(_Job(PAIR_KIND, (a, b), partial(pair, item, a, b)))
                jobs.append(_Job(PAIR_KIND, (b, a), partial(pair, item, b, a)))
    kinds: tuple[RecordKind[Any], ...] = (POINT_KIND, PAIR_KIND)
    finished = {kind: _done(store.records(kind)) for kind in kinds}
    results: dict[RecordKind[Any], list[Any]] = {kind: [] for kind in kinds}

    async def grade(job: _Job) -> None:
        key = job.key(name)
        result = finished[job.kind].get(key)
        if result is None:
            result = await job.run()
            store.put_record(job.kind, key, result)
        results[job.kind].append(result)

    await stage.each("pc2: grade", jobs, judge.max_concurrency, grade)
    points = sorted(results[POINT_KIND], key=lambda p: (p.model, p.item_id))
    pairs = sorted(results[PAIR_KIND], key=lambda p: (p.item_id, p.a, p.b))
    already = sum(job.key(name) in finished[job.kind] for job in jobs)
    report = _report(name, criteria, points, pairs, preferences)
    unscored = sum(p.score is None for p in points) + sum(p.winner is None for p in pairs)
    summary = stage.clock.summary("pc2", total=len(jobs), already_done=already, errors=unscored)
    return PC2Result(criteria, points, pairs, report, summary)


def _report(
    name: str,
    criteria: dict[str, CriteriaSet | None],
    points: list[PointScore],
    pairs: list[PairVerdict],
    preferences: Sequence[HumanPreference],
) -> PC2Report:
    by_model: dict[str, list[float | None]] = defaultdict(list)
    scores: dict[str, dict[str, float | None]] = defaultdict(dict)
    for p in points:
        by_model[p.model].append(None if p.score is None else p.score / TOTAL_WEIGHT)
        scores[p.item_id][p.model] = p.score
    human = {}
    if preferences and points:
        human["pointwise"] = human_accuracy(
            preferences, lambda item_id: by_scores(defaultdict(lambda: None, scores[item_id]))
        )
    if preferences and pairs:
        grouped = by_item(pairs)
        human["pairwise"] = human_accuracy(
            preferences, lambda item_id: two_order_prefer(grouped.get(item_id, []))
        )
    rescaled = [c for c in criteria.values() if c is not None and c.rescaled_from is not None]
    return PC2Report(
        judge=name,
        items=len(criteria),
        criteria_failed=sum(c is None for c in criteria.values()),
        criteria_rescaled=len(rescaled),
        pointwise={m: summarize(s, "exclude") for m, s in sorted(by_model.items())},
        pairwise=win_counts(pairs),
        position=position_report(pairs) if pairs else None,
        human=human,
    )
