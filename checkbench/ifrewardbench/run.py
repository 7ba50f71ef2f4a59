"""Meta-evaluation runs: judges over an IF-RewardBench file, through a run store, into reports.

The run store holds the file's instructions as items and each candidate response as a Response
whose `model` is its response_id, so the checklist judge's verdicts are keyed (instruction,
response, constraint) and pairwise judgments (instruction, response shown first, response shown
second). Every model call goes through a Caller, so a rerun replays finished calls from the
store and resumes where a run stopped.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from checkbench.choices import PairScope, Paradigm
from checkbench.errors import InputError
from checkbench.ifrewardbench.critiques import MissingVerdicts
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.ifrewardbench.edges import NoEdges
from checkbench.ifrewardbench.metrics import MetaReport, Ranking, evaluate
from checkbench.ifrewardbench.pairwise import Method, listwise_scores, pairwise_report
from checkbench.ifrewardbench.records import MetaRecord, MetaResponse
from checkbench.judges.checklist import JUDGE, JudgeSettings, Mode, judge_name
from checkbench.judges.pairwise import PairJob, both_orders, judge_pairs, stored_pair_verdicts
from checkbench.judges.samples import refuse_samples
from checkbench.judges.stage import judge_responses
from checkbench.llm.base import ChatBackend
from checkbench.schema import PairVerdict, Response, Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import RunTally, StageSummary
from checkbench.store import RecordKind, RunStore

RUN_SUFFIX = ".meta"
REPORT_RECORD = RecordKind("meta_report", MetaReport)
"""Record kind of each judge's MetaReport in the run store, keyed by the judge's `model`."""
META_RUN = "meta_evaluation"
"""Run meta key set in a meta run: its responses are the benchmark's, not models under test."""


@dataclass(frozen=True)
class MetaSettings:
    """What the judges do and how their results are scored.

    `pairs`: "all" judges every pair of an instruction's responses (the listwise ranking sees
    them all), "edges" only the pairs of its preference graph (cheaper).
    """

    paradigm: Paradigm = "verification"
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    method: Method = "bradley_terry"
    pairs: PairScope = "all"
    no_edges: NoEdges = "exclude"
    b: int = DEFAULT_B
    seed: int = DEFAULT_SEED

    @property
    def verifies(self) -> bool:
        return self.paradigm in ("verification", "both")

    @property
    def compares(self) -> bool:
        return self.paradigm in ("pairwise", "both")


def default_run_dir(path: str | Path) -> Path:
    """The run directory beside the input: `data.json` -> `data.meta/`."""
    path = Path(path)
    return path.with_name(path.stem + RUN_SUFFIX)


def meta_report(
    path: str | Path,
    *,
    ranking: Ranking | None = None,
    no_edges: NoEdges = "exclude",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    missing: MissingVerdicts = "pass",
) -> MetaReport:
    """Meta-evaluate the judge predictions a file already carries (no model calls): labels, a
    score, or the judge's raw critiques, whose missing verdicts are `missing` ("pass" pads as
    the released metric script does; "unscored" counts them apart). Responses are ranked by
    `pred_score` when the file has any, else by the mean of the predicted labels."""
    records = load_ifrewardbench(path, missing=missing)
    responses = [resp for r in records for resp in r.responses]
    has_scores = any(resp.pred_score is not None for resp in responses)
    if not has_scores and all(resp.pred_labels is None for resp in responses):
        raise InputError(
            "no judge predictions (pred_labels, pred_score or critique) to evaluate: "
            "pass --judge MODEL to run a judge",
            path=path,
        )
    ranking = ranking or ("score" if has_scores else "labels")
    return evaluate(records, ranking=ranking, no_edges=no_edges, b=b, seed=seed)


class JudgeUsage(BaseModel):
    """Calls and tokens of a judge model in the run (role "judge", all paradigms and runs)."""

    calls: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class JudgeResult(BaseModel):
    """One judge's meta-evaluation: `judge` as given, `model` the judge its verdicts carry (its
    pairwise judgments' judge when it only compares)."""

    judge: str
    model: str
    paradigm: Paradigm
    mode: Mode
    usage: JudgeUsage
    unscored: int
    """Labels plus pairwise judgments the judge left unscored."""
    report: MetaReport


@dataclass(frozen=True)
class MetaRun:
    """What a meta run did and found; `results` are ranked by overall tau_b."""

    run_dir: Path
    stages: list[StageSummary]
    results: list[JudgeResult]
    tally: RunTally | None = None
    """What the store says of the run's calls, for the CLI to print (set by `api.meta_run`)."""


def _candidates(record: MetaRecord) -> list[Response]:
    return [
        Response(item_id=record.item.id, model=r.response_id, content=r.response)
        for r in record.responses
    ]


def prepare_meta_run(store: RunStore, records: Sequence[MetaRecord], source: str | Path) -> None:
    """Add the instructions and responses of the file `source`; a response that differs from the
    one already stored under its id is an error (its verdicts would be stale), checked before
    anything is written."""
    refuse_samples(store, "ifrewardbench run")
    stored = {(r.item_id, r.model): r.content for r in store.responses()}
    candidates = [c for r in records for c in _candidates(r)]
    for c in candidates:
        if stored.get((c.item_id, c.model), c.content) != c.content:
            raise InputError(
                f"response {c.model!r} of instruction {c.item_id!r} differs from the one "
                "already in this run: use another --out",
                path=store.run_dir,
            )
    store.add_items(r.item for r in records)
    with store.transaction():
        for c in candidates:
            if (c.item_id, c.model) not in stored:
                store.put_response(c)
    store.set_meta_default("benchmark", str(source))
    store.set_meta(META_RUN, True)


def _pair_jobs(records: Sequence[MetaRecord], scope: PairScope) -> list[PairJob]:
    """Both orders of every pair to judge, in a stable order."""
    jobs = []
    for record in records:
        responses = {c.model: c for c in _candidates(record)}
        edges = {frozenset((e.chosen, e.rejected)) for e in record.preference_graph}
        for x, y in itertools.combinations(responses, 2):
            if scope == "all" or frozenset((x, y)) in edges:
                jobs.extend(both_orders(record.item, responses[x], responses[y]))
    return jobs


Predict = Callable[[MetaRecord, MetaResponse], dict[str, Any]]


def _predicted(records: Sequence[MetaRecord], predict: Predict) -> list[MetaRecord]:
    """The records with each response's predictions replaced by `predict(record, response)`."""
    return [
        r.model_copy(
            update={"responses": [resp.model_copy(update=predict(r, resp)) for resp in r.responses]}
        )
        for r in records
    ]


def _from_verdicts(verdicts: Sequence[Verdict], logprob: bool) -> Predict:
    """pred_labels from the judge's verdicts (a missing verdict is unscored) and, in log-prob
    mode, the mean P(yes) as pred_score (None if any check lacks one)."""
    index = {(v.item_id, v.model, v.check_id): v for v in verdicts}

    def predict(record: MetaRecord, response: MetaResponse) -> dict[str, Any]:
        found = [
            index.get((record.item.id, response.response_id, c.id)) for c in record.item.checklist
        ]
        labels = [None if v is None or v.passed is None else int(v.passed) for v in found]
        probs = [v.p_yes for v in found if v is not None and v.p_yes is not None]
        score = sum(probs) / len(probs) if logprob and len(probs) == len(found) else None
        return {"pred_labels": labels, "pred_score": score}

    return predict


def _from_scores(scores: Mapping[str, Mapping[str, float | None]]) -> Predict:
    """Ranking scores only, no predicted labels."""

    def predict(record: MetaRecord, response: MetaResponse) -> dict[str, Any]:
        return {"pred_labels": None, "pred_score": scores[record.item.id][response.response_id]}

    return predict


def _usage(store: RunStore, model: str) -> JudgeUsage:
    rows = [row for row in store.usage() if row.role == JUDGE and row.model == model]
    return JudgeUsage(
        calls=sum(row.calls for row in rows),
        failed=sum(row.errors for row in rows),
        prompt_tokens=sum(row.prompt_tokens for row in rows),
        completion_tokens=sum(row.completion_tokens for row in rows),
    )


def _result(
    store: RunStore,
    records: Sequence[MetaRecord],
    spec: str,
    backend: ChatBackend,
    jobs: Sequence[PairJob],
    settings: MetaSettings,
) -> JudgeResult:
    """Score one judge's stored verdicts and pairwise judgments against the gold data."""
    logprob = settings.judge.mode == "logprob"
    scoring = {"no_edges": settings.no_edges, "b": settings.b, "seed": settings.seed}
    ranked, pairwise, unscored = list(records), None, 0
    if settings.verifies:
        verdicts = store.verdicts(judge_name(backend, settings.judge))
        ranked = _predicted(records, _from_verdicts(verdicts, logprob))
    if settings.compares:
        asked = {(j.item.id, j.first.model, j.second.model) for j in jobs}
        judged: list[PairVerdict] = [
            v for v in stored_pair_verdicts(store, backend.name) if (v.item_id, v.a, v.b) in asked
        ]
        pairwise = pairwise_report(records, judged, method=settings.method, **scoring)
        unscored += pairwise.unscored
        if not settings.verifies:
            scores = listwise_scores(records, judged, method=settings.method, seed=settings.seed)
            ranked = _predicted(records, _from_scores(scores))
    ranking: Ranking = "score" if logprob or not settings.verifies else "labels"
    report = evaluate(ranked, ranking=ranking, **scoring).model_copy(update={"pairwise": pairwise})
    return JudgeResult(
        judge=spec,
        model=judge_name(backend, settings.judge) if settings.verifies else backend.name,
        paradigm=settings.paradigm,
        mode=settings.judge.mode,
        usage=_usage(store, backend.name),
        unscored=unscored + report.unscored.labels,
        report=report,
    )


def _leaderboard_key(result: JudgeResult) -> tuple[bool, float]:
    tau = result.report.overall.kendall_tau_b.value
    return tau is None, -(tau or 0.0)


async def judge_meta(
    store: RunStore,
    records: Sequence[MetaRecord],
    judges: Sequence[tuple[str, ChatBackend]],
    *,
    settings: MetaSettings,
    caller: Caller,
    progress: ProgressSink | None = None,
) -> MetaRun:
    """Run each opened judge (given with its spec) over every instruction of a prepared run,
    then meta-evaluate it and keep its report in the store; finished calls replay from it."""
    jobs = _pair_jobs(records, settings.pairs) if settings.compares else []
    stages: list[StageSummary] = []
    for _, backend in judges:
        done: list[StageSummary] = []
        if settings.verifies:
            done.append(
                await judge_responses(
                    store, backend, settings=settings.judge, caller=caller, progress=progress
                )
            )
        if settings.compares:
            done.append(await judge_pairs(store, backend, jobs, caller=caller, progress=progress))
        stages += [replace(s, stage=f"{s.stage} ({backend.name})") for s in done]
    results = [_result(store, records, spec, backend, jobs, settings) for spec, backend in judges]
    for result in results:
        store.put_record(REPORT_RECORD, result.model, result.report)
    return MetaRun(store.run_dir, stages, sorted(results, key=_leaderboard_key))
