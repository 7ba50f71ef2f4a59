"""FB-Bench's API functions: the leaderboard of a stored run, bringing the authors' published
judgments into a run, and the difficulty post-filter that keeps the items not every weak model
aces."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from checkbench.benchmarks import load_items
from checkbench.errors import InputError
from checkbench.evaluation import flow
from checkbench.evaluation.flow import ScoringResult
from checkbench.evaluation.runs import answer_and_judge, open_backends, store_items, store_slice
from checkbench.fbbench.difficulty import DifficultyReport, keep_difficult
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.fbbench.scoring import FBBenchLeaderboard, score_run
from checkbench.fbbench.versions import ImportSummary
from checkbench.generation.requests import GenerationSettings
from checkbench.inputs import output_dir, output_file
from checkbench.jsonl import write_jsonl
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.schema import Response
from checkbench.scoring.settings import ScoringSettings
from checkbench.steps.progress import ProgressSink
from checkbench.steps.slices import Slice
from checkbench.store import STORE_FILE, RunStore


def leaderboard(
    run_dir: str | Path,
    *,
    judge: str | None = None,
    calibration: str | Path | None = None,
    settings: ScoringSettings | None = None,
) -> ScoringResult[FBBenchLeaderboard]:
    """FB-Bench scores of a stored run, as `settings` score it: `judge` is the stored judge id
    whose verdicts to score (default: the run's only judge); with `calibration`, the run is
    graded with it and the calibrated judge is scored (see `flow.score`)."""
    return flow.score(
        run_dir, scorer=score_run, judge=judge, calibration=calibration, settings=settings
    )


def import_fbbench_judgments(
    directory: str | Path, run_dir: str | Path, *, slice_: Slice | None = None
) -> ImportSummary:
    """Load published FB-Bench judgment files (one JSONL per model) into a run, new or not: a
    sample already in the run is matched by its content, so files of either dataset version
    land on the same item. The summary says what was read and what differed. With `slice_`,
    only its items (and its models) are imported (see `steps.slices`)."""
    known = []
    if (output_dir(run_dir) / STORE_FILE).is_file():
        with RunStore.existing(run_dir) as store:
            known = store.items()
    loaded = load_fbbench_judgment_dir(directory, known=known)
    models = _sliced_models(loaded.responses, slice_)
    source = f"FB-Bench judgments from {directory}"
    with store_slice(loaded.items, source, run_dir, slice_) as store:
        kept = {item_id for item_id, *_ in store.item_columns()}
        with store.transaction():
            for response in loaded.responses:
                if response.item_id in kept and response.model in models:
                    store.put_response(response)
        store.put_verdicts(v for v in loaded.verdicts if v.item_id in kept and v.model in models)
    return loaded.summary


def _sliced_models(responses: Sequence[Response], slice_: Slice | None) -> set[str]:
    """The models to import: the slice's (each must be in the files), else every one."""
    found = {response.model for response in responses}
    if slice_ is None or not slice_.models:
        return found
    for model in slice_.models:
        if model not in found:
            raise InputError(
                f"no model '{model}' in the judgment files (models: {', '.join(sorted(found))})",
                field="--model",
            )
    return set(slice_.models)


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
