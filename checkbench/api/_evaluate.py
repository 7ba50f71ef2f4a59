"""Evaluating models on a benchmark: generate, judge, score (FB-Bench), in stages or at once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from checkbench.api._stage import (
    answer_and_judge,
    open_backends,
    pick_judge,
    run_stage,
    store_items,
)
from checkbench.benchmarks import iter_items
from checkbench.choices import ScoreSource
from checkbench.choices import ScoringProtocol as Protocol
from checkbench.distributed import Executor, Stages, generation, judging
from checkbench.generate import GenerationSettings, refuse_identical_samples
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import backend_identity
from checkbench.scoring import UnscoredPolicy
from checkbench.stats import DEFAULT_SEED
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore

if TYPE_CHECKING:
    from checkbench.convbench.scoring import BenchScores
    from checkbench.fbbench.scoring import FBBenchLeaderboard


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
) -> StageSummary:
    """Judge every response in the run against its item's checklist; rerunning resumes."""
    stage = judging(executor, judge_model, options)
    backend = open_backend(judge_model, options)
    with RunStore.existing(run_dir, writer=True) as store:
        return run_stage(store, [backend], stage, backend, settings=settings, progress=progress)


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


def leaderboard(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    source: ScoreSource = "verdicts",
    seed: int = DEFAULT_SEED,
) -> FBBenchLeaderboard:
    """FB-Bench scores per model (EC, RM, Overall) with intervals and breakdowns; `judge` is
    the stored judge id whose verdicts to score (default: the run's only judge). The store is
    read in columns, so memory and time stay small for large runs."""
    from checkbench.fbbench.scoring import store_leaderboard

    with RunStore.existing(run_dir) as store:
        chosen = pick_judge(store, judge)
        return store_leaderboard(store, chosen, policy=policy, source=source, seed=seed)


def run(
    bench: str | Path,
    models: Sequence[str],
    judge_model: str,
    run_dir: str | Path,
    *,
    fmt: str = "auto",
    settings: GenerationSettings | None = None,
    judge_settings: JudgeSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    policy: UnscoredPolicy = "zero",
    protocol: Protocol = "auto",
    executor: Executor = "local",
) -> tuple[list[StageSummary], FBBenchLeaderboard | BenchScores]:
    """Generate, judge and score in one go, by the benchmark's protocol: "fb-bench" (the
    FB-Bench leaderboard: needs a scenario and a task per item) or "conv-to-bench" (the mean of
    each item's checks, cluster bootstrap over items); "auto" picks FB-Bench when every item
    carries its tags."""
    from checkbench.fbbench.scoring import is_fbbench_store

    judge_settings = judge_settings or JudgeSettings()
    stages = Stages(generation(executor, models, options), judging(executor, judge_model, options))
    candidates = open_backends(models, options)
    judge_backend = open_backend(judge_model, options)
    refuse_identical_samples(iter_items(bench, fmt), settings or GenerationSettings(), candidates)
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
        fbbench = is_fbbench_store(store)
    judge_id = judge_name(judge_backend, judge_settings)
    if protocol == "fb-bench" or (protocol == "auto" and fbbench):
        return summaries, leaderboard(run_dir, judge=judge_id, policy=policy)
    from checkbench.convbench.api import score  # Conv-to-Bench's scoring, loaded only for it

    return summaries, score(run_dir, judge=judge_id, policy=policy)
