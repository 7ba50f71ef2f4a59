"""IF-RewardBench's API function: judging the judges on its data, judge models opened here,
run by `run`, meta-evaluated against the gold labels and edges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from checkbench.errors import InputError
from checkbench.evaluation.runs import open_backends, run_stage
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.ifrewardbench.run import (
    MetaRun,
    MetaSettings,
    default_run_dir,
    judge_meta,
    prepare_meta_run,
)
from checkbench.llm import ModelOptions, backend_name
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import RunTally
from checkbench.store import RunStore


def _check_judges(specs: Sequence[str], options: ModelOptions | None) -> None:
    """At least one judge, and no two specs naming the same model (aliases of the models
    file included)."""
    if not specs:
        raise InputError("name at least one judge model", field="judge")
    names = [backend_name(spec, options) for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise InputError(f"judge {name!r} given twice", field="judge")


def meta_run(
    path: str | Path,
    judges: Sequence[str],
    *,
    settings: MetaSettings | None = None,
    run_dir: str | Path | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> MetaRun:
    """Run each judge over every instruction of an IF-RewardBench file, then meta-evaluate it;
    rerunning resumes and replays finished calls from the run store (default: beside the
    file, data.json -> data.meta/)."""
    records = load_ifrewardbench(path, missing=None)  # the judge run predicts anew
    _check_judges(judges, options)
    backends = open_backends(judges, options)
    with RunStore(run_dir if run_dir is not None else default_run_dir(path)) as store:
        prepare_meta_run(store, records, path)
        run = run_stage(
            store,
            backends,
            judge_meta,
            records,
            list(zip(judges, backends, strict=True)),
            settings=settings or MetaSettings(),
            progress=progress,
        )
        return replace(run, tally=RunTally.read(store, run.stages))
