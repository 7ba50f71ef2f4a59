"""The one flow of a run, top to bottom: store the benchmark's items, open the models and bind
them to the run's names, let the candidates answer and the judge judge, score by the
benchmark's protocol, and return a typed `RunResult` for the caller to print.

`run` does it all in one go on one open store; `generate`, `judge` and `score` are its steps
one at a time, each resuming where an earlier call stopped, each opening the store once and
returning what the CLI prints (`GenerationResult`, `JudgingResult`, `ScoringResult`).
Scoring goes through the protocol registry (`_score_by_protocol`): this layer imports no
protocol package. The settings objects (`GenerationSettings`, `JudgeSettings`,
`ScoringSettings`) are taken as they are, from the CLI or from Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from checkbench import registry
from checkbench.benchmarks import iter_items
from checkbench.distributed import Executor, Stages, generation, judging, probe
from checkbench.distributed.executor import ray_executor
from checkbench.errors import InputError
from checkbench.evaluation.runs import (
    answer_and_judge,
    keep_sampling,
    open_backends,
    pick_judge,
    run_stage,
    store_slice,
    undone_unless_called,
    within,
)
from checkbench.generation.requests import (
    GenerationSettings,
    refuse_identical_samples,
)
from checkbench.judges.calibration import calibrate_run, stored_warning
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend, backend_identity
from checkbench.scoring.settings import ScoringSettings
from checkbench.steps.budget import CostLimit
from checkbench.steps.progress import ProgressSink
from checkbench.steps.slices import Slice, claim_judge
from checkbench.steps.stage import RunTally, StageSummary
from checkbench.store import RunStore
from checkbench.store.scope import Scope

S = TypeVar("S")
Scorer = Callable[[RunStore, str, ScoringSettings], S]
"""Scores of an open run store by one judge's verdicts (e.g. FB-Bench's leaderboard)."""


@dataclass(frozen=True)
class RunResult:
    """What `run` did: each stage's summary, the scores by the run's judge of the protocol
    that scored it (its run scorer's name in the registry), and what the store says of the
    run's calls (`tally`)."""

    stages: list[StageSummary]
    protocol: str
    scores: Any
    judge: str
    tally: RunTally


@dataclass(frozen=True)
class GenerationResult:
    """What `generate` did: its stage's summary and what the store says of its calls
    (`tally`)."""

    stage: StageSummary
    tally: RunTally


@dataclass(frozen=True)
class JudgingResult:
    """What `judge` did: its stage's summary, the judge id its verdicts are stored under (the
    name the run bound the model to, marked when it judges by log-probs), the protocol that
    scores the run ("auto": its run scorer's name in the registry), and `tally`."""

    stage: StageSummary
    judge: str
    protocol: str
    tally: RunTally


def run(
    bench: str | Path,
    models: Sequence[str],
    judge_model: str,
    run_dir: str | Path,
    *,
    fmt: str = "auto",
    settings: GenerationSettings | None = None,
    judge_settings: JudgeSettings | None = None,
    scoring: ScoringSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    executor: Executor = "local",
    slice_: Slice | None = None,
    cost: CostLimit | None = None,
) -> RunResult:
    """Generate, judge and score in one go, on one open run store; rerunning resumes. With
    `slice_`, the run's items are the slice's (see `steps.slices`); with `cost`, the calls stop
    at its limit (`OverBudget`)."""
    settings = settings or GenerationSettings()
    judge_settings = judge_settings or JudgeSettings()
    # 1. open the models: the candidates and the judge, here or on Ray workers
    stages = Stages(generation(executor, models, options), judging(executor, judge_model, options))
    candidates = open_backends(models, options)
    judge_backend = open_backend(judge_model, options)
    refuse_identical_samples(iter_items(bench, fmt), settings, candidates)
    cost = _priced(cost, [*candidates, judge_backend], executor)
    probe(executor)
    # 2. store the items (bad input writes nothing), then answer and judge them
    with (
        undone_unless_called(run_dir),
        prepare_run(bench, run_dir, fmt=fmt, slice_=slice_) as store,
        within(store, [*candidates, judge_backend], cost),
    ):
        keep_sampling(store, candidates, settings)
        claim_judge(store, judge_name(judge_backend, judge_settings), Slice())
        summaries = answer_and_judge(
            store,
            candidates,
            judge_backend,
            settings=settings,
            judge_settings=judge_settings,
            progress=progress,
            stages=stages,
        )
        # 3. score the judge's verdicts by the benchmark's protocol
        judge = judge_name(judge_backend, judge_settings)
        protocol, scores = _score_by_protocol(store, judge, scoring or ScoringSettings())
        return RunResult(summaries, protocol, scores, judge, RunTally.read(store, summaries))


def _score_by_protocol(store: RunStore, judge: str, settings: ScoringSettings) -> tuple[str, Any]:
    """The scoring seam: the name of the protocol that scores the run and its scores of
    `judge`'s verdicts: `settings.protocol` names it ("fb-bench", "conv-to-bench"), or with
    "auto" the first registered protocol that claims the run's items."""
    scorer = registry.run_scorer(store, settings.protocol)
    return scorer.name, scorer.score(store, judge, settings)


def prepare_run(
    bench: str | Path, run_dir: str | Path, *, fmt: str = "auto", slice_: Slice | None = None
) -> RunStore:
    """The run store holding the benchmark's items (the slice's), validated and stored as
    they are read, in one transaction: memory does not grow with the benchmark (unless
    sliced), and bad input writes nothing."""
    return store_slice(iter_items(bench, fmt), bench, run_dir, slice_)


def _priced(
    cost: CostLimit | None, backends: Sequence[ChatBackend], executor: Executor
) -> CostLimit:
    """The cost limit, checked before anything is written: every model priced when there is
    a limit, and the calls made here (a limit counts this process's calls)."""
    cost = cost or CostLimit()
    if cost.max_cost is not None and ray_executor(executor) is not None:
        raise InputError(
            "a cost limit counts the calls made here: use --executor local", field="--max-cost"
        )
    cost.priced(backends)
    return cost


def generate(
    bench: str | Path,
    models: Sequence[str],
    run_dir: str | Path,
    *,
    fmt: str = "auto",
    settings: GenerationSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    executor: Executor = "local",
    slice_: Slice | None = None,
    cost: CostLimit | None = None,
) -> GenerationResult:
    """Answer every item of `bench` (of the slice) with every model (`settings.samples`
    times); rerunning resumes where it stopped."""
    stage = generation(executor, models, options)
    backends = open_backends(models, options)
    refuse_identical_samples(iter_items(bench, fmt), settings or GenerationSettings(), backends)
    cost = _priced(cost, backends, executor)
    probe(executor)
    with (
        undone_unless_called(run_dir),
        prepare_run(bench, run_dir, fmt=fmt, slice_=slice_) as store,
        within(store, backends, cost),
    ):
        keep_sampling(store, backends, settings or GenerationSettings())
        summary = run_stage(store, backends, stage, backends, settings=settings, progress=progress)
        return GenerationResult(summary, RunTally.read(store, [summary]))


def judge(
    run_dir: str | Path,
    judge_model: str,
    *,
    settings: JudgeSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    executor: Executor = "local",
    slice_: Slice | None = None,
    cost: CostLimit | None = None,
) -> JudgingResult:
    """Judge every response in the run (the slice's) against its item's checklist; rerunning
    resumes."""
    settings = settings or JudgeSettings()
    stage = judging(executor, judge_model, options)
    backend = open_backend(judge_model, options)
    cost = _priced(cost, [backend], executor)
    with RunStore.existing(run_dir, writer=True) as store:
        # the slice checked and recorded under the judge's name in the run before any write
        backend.name = _bound_name(store, backend)
        claim_judge(store, judge_name(backend, settings), slice_ or Slice())
        with within(store, [backend], cost):
            summary = run_stage(
                store, [backend], stage, backend, settings=settings, progress=progress
            )
        judge = judge_name(backend, settings)
        protocol = registry.run_scorer(store).name
        return JudgingResult(summary, judge, protocol, RunTally.read(store, [summary]))


def judge_id(
    run_dir: str | Path,
    judge_model: str,
    *,
    settings: JudgeSettings | None = None,
    options: ModelOptions | None = None,
) -> str:
    """The judge id `judge` stores this model's verdicts under in the run: the name the run
    bound the model's identity to (see `bind_backends`), marked when it judges by log-probs.
    Nothing is called."""
    backend = open_backend(judge_model, options)
    with RunStore.existing(run_dir) as store:
        backend.name = _bound_name(store, backend)
    return judge_name(backend, settings or JudgeSettings())


def _bound_name(store: RunStore, backend: ChatBackend) -> str:
    """The name the run bound the backend's identity to (its own when not bound yet)."""
    bound = {identity: name for name, identity in store.model_identities().items()}
    return bound.get(backend_identity(backend), backend.name)


@dataclass(frozen=True)
class ScoringResult(Generic[S]):
    """What `score` found: the protocol's scores of `judge`'s verdicts, the part of the run
    they cover (`scope`, of the run's `items` items), and the warning of the calibration that
    made the judge, when it has one."""

    scores: S
    judge: str
    scope: Scope
    items: int
    warning: str | None = None


def score(
    run_dir: str | Path,
    *,
    scorer: Scorer[S],
    judge: str | None = None,
    calibration: str | Path | None = None,
    settings: ScoringSettings | None = None,
) -> ScoringResult[S]:
    """The protocol's scores of a stored run by `judge`'s verdicts (default: the run's only
    judge). With `calibration` (its name in the run, or an exported JSON file), the judge is
    the calibrated one, its verdicts stored first."""
    if calibration is not None and judge is not None:
        raise InputError("a calibration names the judge to score: leave out the judge id")
    calibrating = calibration is not None
    with RunStore.existing(run_dir, writer=calibrating, read_only=not calibrating) as store:
        if calibration is not None:
            judge = calibrate_run(store, str(calibration)).name
        judge = pick_judge(store, judge)
        scores = scorer(store, judge, settings or ScoringSettings())
        warning = stored_warning(store, judge)
        return ScoringResult(scores, judge, store.judge_scope(judge), store.count_items(), warning)
