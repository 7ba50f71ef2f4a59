"""The one flow of a run, top to bottom: store the benchmark's items, open the models and bind
them to the run's names, let the candidates answer and the judge judge, score by the
benchmark's protocol, and return a typed `RunResult` for the caller to print.

`run` does it all in one go on one open store; `generate`, `judge` and `score` are its steps
one at a time, each resuming where an earlier call stopped. Scoring goes through the protocol
registry (`_score_by_protocol`): this layer imports no protocol package. The settings objects
(`GenerationSettings`, `JudgeSettings`, `ScoringSettings`) are taken as they are, from the CLI
or from Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkbench import registry
from checkbench.benchmarks import iter_items
from checkbench.distributed import Executor, Stages, generation, judging
from checkbench.evaluation.runs import (
    answer_and_judge,
    open_backends,
    pick_judge,
    run_stage,
    store_items,
)
from checkbench.generation.requests import GenerationSettings, refuse_identical_samples
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import backend_identity
from checkbench.scoring.settings import ScoringSettings
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import RunTally, StageSummary
from checkbench.store import RunStore

Scorer = Callable[[RunStore, str, ScoringSettings], Any]
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
) -> RunResult:
    """Generate, judge and score in one go, on one open run store; rerunning resumes."""
    settings = settings or GenerationSettings()
    judge_settings = judge_settings or JudgeSettings()
    # 1. open the models: the candidates and the judge, here or on Ray workers
    stages = Stages(generation(executor, models, options), judging(executor, judge_model, options))
    candidates = open_backends(models, options)
    judge_backend = open_backend(judge_model, options)
    refuse_identical_samples(iter_items(bench, fmt), settings, candidates)
    # 2. store the items (bad input writes nothing), then answer and judge them
    with prepare_run(bench, run_dir, fmt=fmt) as store:
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
        return RunResult(summaries, protocol, scores, judge, RunTally.read(store))


def _score_by_protocol(store: RunStore, judge: str, settings: ScoringSettings) -> tuple[str, Any]:
    """The scoring seam: the name of the protocol that scores the run and its scores of
    `judge`'s verdicts: `settings.protocol` names it ("fb-bench", "conv-to-bench"), or with
    "auto" the first registered protocol that claims the run's items."""
    scorer = registry.run_scorer(store, settings.protocol)
    return scorer.name, scorer.score(store, judge, policy=settings.policy)


def prepare_run(bench: str | Path, run_dir: str | Path, *, fmt: str = "auto") -> RunStore:
    """The run store holding the benchmark's items, validated and stored as they are read, in
    one transaction: memory does not grow with the benchmark, and bad input writes nothing."""
    return store_items(iter_items(bench, fmt), bench, run_dir)


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
) -> StageSummary:
    """Answer every item of `bench` with every model (`settings.samples` times); rerunning
    resumes where it stopped."""
    stage = generation(executor, models, options)
    backends = open_backends(models, options)
    refuse_identical_samples(iter_items(bench, fmt), settings or GenerationSettings(), backends)
    with prepare_run(bench, run_dir, fmt=fmt) as store:
        return run_stage(store, backends, stage, backends, settings=settings, progress=progress)


def judge(
    run_dir: str | Path,
    judge_model: str,
    *,
    settings: JudgeSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    executor: Executor = "local",
) -> JudgingResult:
    """Judge every response in the run against its item's checklist; rerunning resumes."""
    settings = settings or JudgeSettings()
    stage = judging(executor, judge_model, options)
    backend = open_backend(judge_model, options)
    with RunStore.existing(run_dir, writer=True) as store:
        summary = run_stage(store, [backend], stage, backend, settings=settings, progress=progress)
        judge = judge_name(backend, settings)
        protocol = registry.run_scorer(store).name
        return JudgingResult(summary, judge, protocol, RunTally.read(store))


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
        bound = {identity: name for name, identity in store.model_identities().items()}
    backend.name = bound.get(backend_identity(backend), backend.name)
    return judge_name(backend, settings or JudgeSettings())


def score(
    run_dir: str | Path,
    *,
    scorer: Scorer,
    judge: str | None = None,
    settings: ScoringSettings | None = None,
) -> Any:
    """The protocol's scores of a stored run by `judge`'s verdicts (default: the run's only
    judge)."""
    with RunStore.existing(run_dir) as store:
        return scorer(store, pick_judge(store, judge), settings or ScoringSettings())
