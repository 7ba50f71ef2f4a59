"""Benchmarks from conversation logs (Conv-to-Bench, FB-Bench-style curation), FB-Bench's
difficulty post-filter, and Conv-to-Bench scores of a run."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from checkbench.benchmarks import load_items
from checkbench.convbench.pipeline import BuildSpec, build_benchmark, preview_build
from checkbench.convbench.rank_agreement import load_reference
from checkbench.convbench.scoring import BenchScores, CheckMode, store_bench_scores
from checkbench.convbench.summary import BuildSummary, TopicPreview
from checkbench.distributed import Executor, build_engine
from checkbench.evaluation.runs import (
    answer_and_judge,
    open_backends,
    pick_judge,
    run_closing,
    store_items,
)
from checkbench.fbbench.difficulty import DifficultyReport, keep_difficult
from checkbench.generation.requests import GenerationSettings
from checkbench.inputs import output_dir, output_file
from checkbench.jsonl import write_jsonl
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.scoring import UnscoredPolicy
from checkbench.stats import DEFAULT_SEED
from checkbench.steps.progress import ProgressSink
from checkbench.store import RunStore


def build(
    spec: BuildSpec,
    run_dir: str | Path,
    bench: str | Path,
    *,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    executor: Executor = "local",
) -> BuildSummary:
    """Turn conversation logs into a benchmark (Conv-to-Bench, or FB-Bench-style curation with
    `spec.mode="feedback"`); the stage records and the report go to `run_dir`. With
    `executor="ray"` (or a RayExecutor) records are parsed, first messages embedded and the
    model stages decided on Ray workers; the results are the local executor's. A build whose
    logs yield no item raises CheckbenchError; one that keeps none because a stage's calls all
    failed returns its report (`stage.all_failed`), with no benchmark written."""
    output_dir(run_dir)
    output_file(bench)
    backend = open_backend(spec.model, options)
    engine = build_engine(executor, spec.model, options)
    return run_closing(
        [backend],
        lambda: build_benchmark(spec, run_dir, bench, backend, progress=progress, engine=engine),
    )


def preview(spec: BuildSpec) -> TopicPreview:
    """The cheap stages of a build (reading, concession selection, topics) and its topic
    clusters with their keywords and openers; no model is called and nothing is written."""
    return preview_build(spec)


def filter_by_difficulty(
    bench: str | Path,
    weak_models: Sequence[str],
    judge_model: str,
    out: str | Path,
    *,
    run_dir: str | Path | None = None,
    fmt: str = "auto",
    settings: GenerationSettings | None = None,
    judge_settings: JudgeSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> DifficultyReport:
    """Write to `out` the items of `bench` that not every weak model answers with full score.

    The weak models answer and the judge judges in `run_dir` (a temporary directory unless
    given; give one to resume an interrupted filter)."""
    output_file(out)
    if run_dir is not None:
        output_dir(run_dir)
    items = load_items(bench, fmt)
    judge_settings = judge_settings or JudgeSettings()
    weak = open_backends(weak_models, options)
    judge_backend = open_backend(judge_model, options)
    judge_id = judge_name(judge_backend, judge_settings)
    ids = {item.id for item in items}
    with _work_dir(run_dir) as work, store_items(items, bench, work) as store:
        stages = answer_and_judge(
            store,
            weak,
            judge_backend,
            settings=settings,
            judge_settings=judge_settings,
            progress=progress,
        )
        responses = [r for r in store.responses() if r.item_id in ids]
        kept, report = keep_difficult(
            items, responses, store.verdicts(judge_id), [b.name for b in weak], judge_id
        )
    write_jsonl(out, kept)
    return report.model_copy(update={"stages": stages})


def _work_dir(run_dir: str | Path | None) -> AbstractContextManager[str | Path]:
    if run_dir is not None:
        return nullcontext(run_dir)
    return tempfile.TemporaryDirectory(prefix="checkbench-difficulty-")


def score(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    checks: CheckMode = "all",
    reference: str | Path | None = None,
    policy: UnscoredPolicy = "exclude",
    seed: int = DEFAULT_SEED,
) -> BenchScores:
    """Conv-to-Bench scores of a run: per model, the mean over instructions of the mean of
    their checks (instruction-derived checks only, or all), with cluster bootstrap intervals;
    with a reference leaderboard file, the rank correlations with it. `judge` is the stored
    judge id whose verdicts to score (default: the run's only judge)."""
    leaderboard_scores = load_reference(reference) if reference is not None else None
    with RunStore.existing(run_dir) as store:
        return store_bench_scores(
            store,
            pick_judge(store, judge),
            checks=checks,
            policy=policy,
            reference=leaderboard_scores,
            seed=seed,
        )
