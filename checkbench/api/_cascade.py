"""A cascade of judges on a run directory (judges.cascade): every input checked before a call
is made or anything is written."""

from __future__ import annotations

from pathlib import Path

from checkbench.errors import InputError
from checkbench.evaluation.runs import run_stage, within
from checkbench.judges.cascade import (
    CascadeSettings,
    CascadeSummary,
    cascade_responses,
    check_inputs,
)
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import backend_identity
from checkbench.steps.budget import CostLimit
from checkbench.steps.progress import ProgressSink
from checkbench.steps.slices import Slice
from checkbench.store import RunStore


def cascade(
    run_dir: str | Path,
    judge_model: str,
    escalate_to: str,
    settings: CascadeSettings | None = None,
    *,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    slice_: Slice | None = None,
    cost: CostLimit | None = None,
) -> CascadeSummary:
    """Judge the run (the slice's part of it) with a cascade: model `judge_model` grades every
    check by P(yes), and the checks it is unsure of go to model `escalate_to` (see
    judges.cascade); rerunning resumes. With `cost`, both judges' calls stop at its limit
    (`OverBudget`), each judge priced. The summary is kept in the run and returned."""
    settings = settings or CascadeSettings()
    settings.check()
    cheap, strong = open_backend(judge_model, options), open_backend(escalate_to, options)
    if backend_identity(cheap) == backend_identity(strong):
        raise InputError(
            f"the strong judge {escalate_to!r} is the cheap judge: escalate to another model",
            field="escalate_to",
        )
    cost = cost or CostLimit()
    cost.priced([cheap, strong])  # with a limit, an unpriced judge is refused: nothing written
    with RunStore.existing(run_dir, writer=True) as store:
        bound = {identity: name for name, identity in store.model_identities().items()}
        for backend in (cheap, strong):  # as run_stage binds them
            backend.name = bound.get(backend_identity(backend), backend.name)
        check_inputs(
            store,
            judge_name(cheap, JudgeSettings(mode="logprob")),
            settings,
            strong=judge_name(strong, JudgeSettings()),
            slice_=slice_,
        )
        with within(store, [cheap, strong], cost):
            return run_stage(
                store,
                [cheap, strong],
                cascade_responses,
                cheap,
                strong,
                settings=settings,
                slice_=slice_,
                progress=progress,
            )
