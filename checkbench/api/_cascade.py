"""A cascade of judges on a run directory (judges.cascade): every input checked before a call
is made or anything is written."""

from __future__ import annotations

from pathlib import Path

from checkbench.errors import InputError
from checkbench.evaluation.runs import run_stage
from checkbench.judges.cascade import (
    CascadeSettings,
    CascadeSummary,
    cascade_responses,
    check_inputs,
)
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import backend_identity
from checkbench.steps.progress import ProgressSink
from checkbench.store import RunStore


def cascade(
    run_dir: str | Path,
    judge_model: str,
    escalate_to: str,
    settings: CascadeSettings | None = None,
    *,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> CascadeSummary:
    """Judge the run with a cascade: model `judge_model` grades every check by P(yes), and the
    checks it is unsure of go to model `escalate_to` (see judges.cascade); rerunning resumes.
    The summary is kept in the run and returned."""
    settings = settings or CascadeSettings()
    settings.check()
    cheap, strong = open_backend(judge_model, options), open_backend(escalate_to, options)
    if backend_identity(cheap) == backend_identity(strong):
        raise InputError(
            f"the strong judge {escalate_to!r} is the cheap judge: escalate to another model",
            field="escalate_to",
        )
    with RunStore.existing(run_dir, writer=True) as store:
        bound = {identity: name for name, identity in store.model_identities().items()}
        cheap.name = bound.get(backend_identity(cheap), cheap.name)  # as run_stage binds it
        check_inputs(store, judge_name(cheap, JudgeSettings(mode="logprob")), settings)
        return run_stage(
            store,
            [cheap, strong],
            cascade_responses,
            cheap,
            strong,
            settings=settings,
            progress=progress,
        )
