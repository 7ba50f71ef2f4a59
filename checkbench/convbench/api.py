"""Conv-to-Bench's API: benchmarks from conversation logs (Conv-to-Bench, or FB-Bench-style
curation), a preview of a build's topics, and Conv-to-Bench scores of a run."""

from __future__ import annotations

from pathlib import Path

from checkbench.convbench.build import BuildResult, build_benchmark, preview_build
from checkbench.convbench.rank_agreement import load_reference
from checkbench.convbench.ray_engine import build_engine
from checkbench.convbench.scoring import BenchScores, CheckMode, store_bench_scores
from checkbench.convbench.spec import BuildSpec
from checkbench.convbench.summary import TopicPreview
from checkbench.distributed.executor import Executor
from checkbench.evaluation import flow
from checkbench.evaluation.flow import ScoringResult
from checkbench.evaluation.runs import run_closing
from checkbench.inputs import output_dir, output_file
from checkbench.llm import ModelOptions, open_backend
from checkbench.scoring import UnscoredPolicy
from checkbench.scoring.settings import ScoringSettings
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
) -> BuildResult:
    """Turn conversation logs into a benchmark (Conv-to-Bench, or FB-Bench-style curation with
        `spec.mode="feedback"`); the stage records and the report go to `run_dir`. With
        `executor="ray"` (or a RayExecutor) records are parsed, first messages embedded and the
        model stages decided on Ray workers; the results are the local executor's. A build whose
        logs yield no item raises CheckbenchError; one that keeps none because a stage's calls all
        failed returns its report (`stage.all_failed`), with no benchmark written. The result holds
    the report and the tally of the build's calls."""
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


def score(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    calibration: str | Path | None = None,
    checks: CheckMode = "all",
    reference: str | Path | None = None,
    policy: UnscoredPolicy = "exclude",
    seed: int = DEFAULT_SEED,
) -> ScoringResult[BenchScores]:
    """Conv-to-Bench scores of a run: per model, the mean over instructions of the mean of
    their checks (instruction-derived checks only, or all), with cluster bootstrap intervals;
    with a reference leaderboard file, the rank correlations with it. `judge` is the stored
    judge id whose verdicts to score (default: the run's only judge); `calibration` grades
    with a calibration and scores the calibrated judge (see `flow.score`)."""
    leaderboard_scores = load_reference(reference) if reference is not None else None

    def scorer(store: RunStore, chosen: str, _: ScoringSettings) -> BenchScores:
        return store_bench_scores(
            store, chosen, checks=checks, policy=policy, reference=leaderboard_scores, seed=seed
        )

    return flow.score(run_dir, scorer=scorer, judge=judge, calibration=calibration)
