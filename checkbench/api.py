"""The Python API: each function is what one CLI command does."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from checkbench.benchmarks import load_items
from checkbench.calls import Caller
from checkbench.datasets.fbbench import load_fbbench_judgment_dir
from checkbench.errors import InputError
from checkbench.generate import GenerationSettings, generate_responses
from checkbench.stage import StageSummary

__all__ = [
    "GenerationSettings",
    "JudgeSettings",
    "ModelOptions",
    "StageSummary",
    "generate",
    "import_fbbench_judgments",
    "judge",
    "leaderboard",
    "prepare_run",
    "run",
]
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.judges.stage import judge_responses
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend
from checkbench.progress import ProgressSink
from checkbench.scoring import FBBenchLeaderboard, ScoreSource, UnscoredPolicy, fbbench_leaderboard
from checkbench.stats import DEFAULT_SEED
from checkbench.store import RunStore


async def _close_all(backends: Sequence[ChatBackend]) -> None:
    for backend in backends:
        await backend.aclose()


def prepare_run(bench: str | Path, run_dir: str | Path, *, fmt: str = "auto") -> RunStore:
    """Validate the whole benchmark first, then add its items to the run store."""
    items = load_items(bench, fmt)
    store = RunStore(run_dir)
    store.add_items(items)
    store.set_meta_default("benchmark", str(bench))
    return store


def generate(
    bench: str | Path,
    models: Sequence[str],
    run_dir: str | Path,
    *,
    fmt: str = "auto",
    settings: GenerationSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> StageSummary:
    """Answer every item of `bench` with every model; rerunning resumes where it stopped."""
    backends = [open_backend(spec, options) for spec in models]
    with prepare_run(bench, run_dir, fmt=fmt) as store:

        async def run() -> StageSummary:
            try:
                return await generate_responses(
                    store, backends, settings=settings, caller=Caller(store), progress=progress
                )
            finally:
                await _close_all(backends)

        return asyncio.run(run())


def _pick_judge(store: RunStore, judge: str | None) -> str:
    """The judge whose verdicts to score: the one named, or the run's only judge."""
    judges = store.judges()
    if judge is not None:
        if judge not in judges:
            raise InputError(
                f"no verdicts by judge '{judge}' (judges: {', '.join(judges) or 'none'})"
            )
        return judge
    if len(judges) != 1:
        found = ", ".join(judges) if judges else "none yet: run `checkbench judge` first"
        raise InputError(f"choose a judge with --judge (judges in this run: {found})")
    return judges[0]


def judge(
    run_dir: str | Path,
    judge_model: str,
    *,
    settings: JudgeSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> StageSummary:
    """Judge every response in the run against its item's checklist; rerunning resumes."""
    backend = open_backend(judge_model, options)
    with RunStore.existing(run_dir) as store:

        async def run() -> StageSummary:
            try:
                return await judge_responses(
                    store, backend, settings=settings, caller=Caller(store), progress=progress
                )
            finally:
                await backend.aclose()

        return asyncio.run(run())


def leaderboard(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    source: ScoreSource = "verdicts",
    seed: int = DEFAULT_SEED,
) -> FBBenchLeaderboard:
    """FB-Bench scores per model (EC, RM, Overall) with intervals and breakdowns."""
    with RunStore.existing(run_dir) as store:
        chosen = _pick_judge(store, judge)
        return fbbench_leaderboard(
            store.items(),
            store.responses(),
            store.verdicts(chosen),
            policy=policy,
            source=source,
            seed=seed,
        )


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
) -> tuple[list[StageSummary], FBBenchLeaderboard]:
    """Generate, judge and score in one go."""
    summaries = [
        generate(
            bench, models, run_dir, fmt=fmt, settings=settings, options=options, progress=progress
        )
    ]
    summaries.append(
        judge(run_dir, judge_model, settings=judge_settings, options=options, progress=progress)
    )
    judge_id = judge_name(open_backend(judge_model, options), judge_settings or JudgeSettings())
    return summaries, leaderboard(run_dir, judge=judge_id, policy=policy)


def import_fbbench_judgments(directory: str | Path, run_dir: str | Path) -> dict[str, int]:
    """Load published FB-Bench judgment files (one JSONL per model) into a run."""
    items, responses, verdicts = load_fbbench_judgment_dir(directory)
    with RunStore(run_dir) as store:
        store.add_items(items)
        store.set_meta_default("benchmark", f"FB-Bench judgments from {directory}")
        with store.transaction():
            for response in responses:
                store.put_response(response)
        store.put_verdicts(verdicts)
    return {"items": len(items), "responses": len(responses), "verdicts": len(verdicts)}
