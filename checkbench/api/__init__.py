"""The Python API: each function is what one CLI command does."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from checkbench.benchmarks import load_items
from checkbench.convbench.pipeline import BuildSpec, build_benchmark
from checkbench.convbench.rank_agreement import load_reference
from checkbench.convbench.scoring import BenchScores, CheckMode, bench_scores
from checkbench.convbench.summary import BuildSummary
from checkbench.errors import InputError
from checkbench.fbbench.difficulty import DifficultyReport, keep_difficult
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.fbbench.scoring import FBBenchLeaderboard, ScoreSource, fbbench_leaderboard
from checkbench.generate import GenerationSettings, generate_responses
from checkbench.ifrewardbench.run import MetaRun, MetaSettings, meta_report, meta_run
from checkbench.jsonl import write_jsonl
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.judges.human import judge_agreement
from checkbench.judges.pc2 import PC2Result, PC2Settings, load_preferences, pc2_evaluate
from checkbench.judges.stage import judge_responses
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend
from checkbench.scan.builder import TaxBuilderSettings, TaxBuildResult, build_taxonomy
from checkbench.scan.domains import seed_taxonomy
from checkbench.scan.navigate import Navigation, NavigationSettings, navigate_items
from checkbench.scan.realmix import MixResult, MixSettings, realmix
from checkbench.scan.tagging import TagResult, TagSettings, tag_items
from checkbench.scan.tree import load_taxonomy, save_taxonomy
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import UnscoredPolicy, score_responses
from checkbench.stats import DEFAULT_SEED
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore

__all__ = [
    "BenchScores",
    "BuildSummary",
    "BuildSpec",
    "DifficultyReport",
    "GenerationSettings",
    "JudgeSettings",
    "MetaRun",
    "MetaSettings",
    "ModelOptions",
    "StageSummary",
    "build",
    "filter_by_difficulty",
    "generate",
    "import_fbbench_judgments",
    "judge",
    "judge_agreement",
    "leaderboard",
    "meta_report",
    "meta_run",
    "prepare_run",
    "report",
    "run",
    "score",
    "view",
]


T = TypeVar("T")


def _run_stage(
    store: RunStore,
    backends: Sequence[ChatBackend],
    stage: Callable[..., Awaitable[T]],
    *args: Any,
    **kwargs: Any,
) -> T:
    """Run `stage(store, *args, caller=Caller(store), **kwargs)` to the end, then close the
    backends, whether it finished or failed."""

    async def run() -> T:
        try:
            return await stage(store, *args, caller=Caller(store), **kwargs)
        finally:
            for backend in backends:
                await backend.aclose()

    return asyncio.run(run())


def _judge_id(judge_model: str, options: ModelOptions | None, settings: JudgeSettings) -> str:
    """The name under which `judge_model` with these settings records its verdicts."""
    return judge_name(open_backend(judge_model, options), settings)


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
        return _run_stage(
            store, backends, generate_responses, backends, settings=settings, progress=progress
        )


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


def _judged_run(
    run_dir: str | Path, judge: str | None
) -> tuple[str, list[Item], list[Response], list[Verdict]]:
    """The judge to score (see `_pick_judge`), the run's items, its responses and that judge's
    verdicts."""
    with RunStore.existing(run_dir) as store:
        chosen = _pick_judge(store, judge)
        return chosen, store.items(), store.responses(), store.verdicts(chosen)


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
        return _run_stage(
            store, [backend], judge_responses, backend, settings=settings, progress=progress
        )


def leaderboard(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    source: ScoreSource = "verdicts",
    seed: int = DEFAULT_SEED,
) -> FBBenchLeaderboard:
    """FB-Bench scores per model (EC, RM, Overall) with intervals and breakdowns."""
    _, items, responses, verdicts = _judged_run(run_dir, judge)
    return fbbench_leaderboard(items, responses, verdicts, policy=policy, source=source, seed=seed)


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
    judge_id = _judge_id(judge_model, options, judge_settings or JudgeSettings())
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


def report(
    run_dir: str | Path,
    out: str | Path | None = None,
    *,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    prices: Sequence[str] = (),
    taxonomy: str | Path | None = None,
) -> Path:
    """Write the run's self-contained HTML report (default RUN_DIR/report.html); `prices` are
    "MODEL=INPUT,OUTPUT" in USD per million tokens. Returns the file written."""
    from checkbench.report.assemble import write_report
    from checkbench.report.run import report_options

    return write_report(run_dir, out, report_options(judge, policy, prices, taxonomy))


def view(
    run_dir: str | Path,
    *,
    port: int = 8765,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    prices: Sequence[str] = (),
    taxonomy: str | Path | None = None,
    ready: Callable[[str], None] = print,
) -> None:
    """Serve the report on http://127.0.0.1:PORT/ (item pages fetched on demand) until
    interrupted; `ready` receives the address once the server listens."""
    from checkbench.report.run import report_options
    from checkbench.report.server import serve

    serve(run_dir, report_options(judge, policy, prices, taxonomy), port=port, ready=ready)


# ---------------------------------------------------------------- build: benchmarks from logs


def build(
    spec: BuildSpec,
    run_dir: str | Path,
    bench: str | Path,
    *,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> BuildSummary:
    """Turn conversation logs into a benchmark (Conv-to-Bench, or FB-Bench-style curation with
    `spec.mode="feedback"`); the stage records and the report go to `run_dir`."""
    return build_benchmark(spec, run_dir, bench, options=options, progress=progress)


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
    items = load_items(bench, fmt)
    judge_settings = judge_settings or JudgeSettings()
    judge_id = _judge_id(judge_model, options, judge_settings)
    weak = [open_backend(spec, options).name for spec in weak_models]
    ids = {item.id for item in items}
    with _work_dir(run_dir) as work:
        generate(
            bench, weak_models, work, fmt=fmt, settings=settings, options=options, progress=progress
        )
        judge(work, judge_model, settings=judge_settings, options=options, progress=progress)
        with RunStore.existing(work) as store:
            responses = [r for r in store.responses() if r.item_id in ids]
            kept, report = keep_difficult(
                items, responses, store.verdicts(judge_id), weak, judge_id
            )
    write_jsonl(out, kept)
    return report


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
    with a reference leaderboard file, the rank correlations with it."""
    leaderboard_scores = load_reference(reference) if reference is not None else None
    chosen, items, responses, verdicts = _judged_run(run_dir, judge)
    return bench_scores(
        items,
        responses,
        verdicts,
        judge=chosen,
        checks=checks,
        policy=policy,
        reference=leaderboard_scores,
        seed=seed,
    )


# ---------------------------------------------------------------- SCAN taxonomy


def taxonomy_build(
    queries: str | Path,
    run_dir: str | Path,
    taxonomy_out: str | Path,
    *,
    model: str = "local",
    seed: str | Path | None = None,
    settings: TaxBuilderSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> TaxBuildResult:
    """Grow a capability taxonomy from the queries' capabilities (TaxBuilder), starting from
    `seed` (default: the seven SCAN domains), and write it pruned; rerunning resumes."""
    items = load_items(queries)
    start = load_taxonomy(seed) if seed is not None else seed_taxonomy()
    backend = open_backend(model, options)
    with RunStore(run_dir) as store:
        result = _run_stage(
            store,
            [backend],
            build_taxonomy,
            backend,
            items,
            seed=start,
            settings=settings,
            progress=progress,
        )
    save_taxonomy(result.taxonomy, taxonomy_out)
    return result


Rewritten = TypeVar("Rewritten", TagResult, MixResult)


def _rewrite_bench(
    stage: Callable[..., Awaitable[Rewritten]],
    bench: str | Path,
    taxonomy: str | Path,
    run_dir: str | Path,
    bench_out: str | Path,
    *,
    model: str,
    settings: TagSettings | MixSettings | None,
    options: ModelOptions | None,
    progress: ProgressSink | None,
) -> Rewritten:
    """Run a stage that turns a benchmark's items into new ones under a taxonomy; write them."""
    items, tree = load_items(bench), load_taxonomy(taxonomy)
    backend = open_backend(model, options)
    with RunStore(run_dir) as store:
        result = _run_stage(
            store, [backend], stage, backend, items, tree, settings=settings, progress=progress
        )
    write_jsonl(bench_out, result.items)
    return result


def taxonomy_tag(
    bench: str | Path,
    taxonomy: str | Path,
    run_dir: str | Path,
    bench_out: str | Path,
    *,
    model: str = "local",
    settings: TagSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> TagResult:
    """Give every item a domain and taxonomy tags; write the tagged benchmark."""
    return _rewrite_bench(
        tag_items,
        bench,
        taxonomy,
        run_dir,
        bench_out,
        model=model,
        settings=settings,
        options=options,
        progress=progress,
    )


def taxonomy_synthesize(
    tagged: str | Path,
    taxonomy: str | Path,
    run_dir: str | Path,
    bench_out: str | Path,
    *,
    model: str = "local",
    settings: MixSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> MixResult:
    """RealMix: add quality-filtered synthetic queries to every leaf with too few items; write
    the input items followed by the new ones."""
    return _rewrite_bench(
        realmix,
        tagged,
        taxonomy,
        run_dir,
        bench_out,
        model=model,
        settings=settings,
        options=options,
        progress=progress,
    )


def taxonomy_pc2(
    run_dir: str | Path,
    judge_model: str,
    aux_models: Sequence[str],
    *,
    settings: PC2Settings | None = None,
    human: str | Path | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> PC2Result:
    """Grade the run's responses with the PC^2 judge (criteria from auxiliary answers),
    pointwise and/or pairwise, and measure agreement with human preferences when given."""
    if not aux_models:
        raise InputError("give at least one auxiliary model (--aux)")
    if len(set(aux_models)) != len(aux_models):
        raise InputError("each auxiliary model may be given once", field="aux")
    with RunStore.existing(run_dir) as store:
        preferences = load_preferences(human, store) if human is not None else []
        judge_backend = open_backend(judge_model, options)
        aux = [open_backend(spec, options) for spec in aux_models]
        return _run_stage(
            store,
            [judge_backend, *aux],
            pc2_evaluate,
            judge_backend,
            aux,
            settings=settings,
            preferences=preferences,
            progress=progress,
        )


def taxonomy_navigate(
    run_dir: str | Path,
    taxonomy: str | Path,
    *,
    judge: str | None = None,
    settings: NavigationSettings | None = None,
    pruned: bool = True,
) -> Navigation:
    """Per taxonomy node, every model's score and rank from the run's checklist verdicts, and
    each model's strengths, weaknesses and unstable parents (unscored items left out)."""
    tree = load_taxonomy(taxonomy)
    _, items, responses, verdicts = _judged_run(run_dir, judge)
    scores = score_responses(items, responses, verdicts)
    return navigate_items(items, scores, tree, settings=settings, pruned=pruned)
