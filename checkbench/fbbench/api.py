"""FB-Bench's API functions: bringing the authors' published judgments into a run, and the
difficulty post-filter that keeps the items not every weak model aces."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from checkbench.benchmarks import load_items
from checkbench.evaluation.runs import answer_and_judge, open_backends, store_items
from checkbench.fbbench.difficulty import DifficultyReport, keep_difficult
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.fbbench.versions import ImportSummary
from checkbench.generation.requests import GenerationSettings
from checkbench.inputs import output_dir, output_file
from checkbench.jsonl import write_jsonl
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.steps.progress import ProgressSink
from checkbench.store import STORE_FILE, RunStore


def import_fbbench_judgments(directory: str | Path, run_dir: str | Path) -> ImportSummary:
    """Load published FB-Bench judgment files (one JSONL per model) into a run, new or not: a
    sample already in the run is matched by its content, so files of either dataset version
    land on the same item. The summary says what was read and what differed."""
    known = []
    if (Path(run_dir) / STORE_FILE).is_file():
        with RunStore.existing(run_dir) as store:
            known = store.items()
    loaded = load_fbbench_judgment_dir(directory, known=known)
    with store_items(loaded.items, f"FB-Bench judgments from {directory}", run_dir) as store:
        with store.transaction():
            for response in loaded.responses:
                store.put_response(response)
        store.put_verdicts(loaded.verdicts)
    return loaded.summary


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
