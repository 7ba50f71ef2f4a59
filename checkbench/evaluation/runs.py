"""The plumbing of a run, shared by the evaluation flow and the protocols' commands: run stores
filled with items, backends opened and bound to the run's names, stages run on them in the one
event loop, and the judge whose verdicts a run is read by.

Opening backends and running the event loop happen here only: the stages and the protocol
packages receive opened backends and a Caller.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from checkbench.distributed import LOCAL_STAGES, Stages
from checkbench.errors import InputError
from checkbench.generation.requests import GenerationSettings
from checkbench.judges.checklist import JudgeSettings
from checkbench.judges.stage import answer_and_judge_here
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend, backend_identity, backend_price
from checkbench.llm.batch import BatchBackend
from checkbench.llm.models_file import Price
from checkbench.schema import Item, Response, Verdict
from checkbench.steps import loop
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore, made_by_opening, remove_made

T = TypeVar("T")


def open_backends(specs: Sequence[str], options: ModelOptions | None) -> list[ChatBackend]:
    """One backend per model spec, in order; an unknown spec raises InputError."""
    return [open_backend(spec, options) for spec in specs]


def bind_backends(store: RunStore, backends: Sequence[ChatBackend]) -> None:
    """Name each backend as the run knows its identity: the same model reached twice resumes,
    and a second model under a taken name (another endpoint or sampling) gets its own. A batch
    backend keeps its submitted batches in the run's store, to pick them up when resumed; the
    store keeps each priced model's price, for the run's report."""
    prices: dict[str, Price] = {}
    for backend in backends:
        backend.name = store.bind_model(backend.name, backend_identity(backend))
        if (price := backend_price(backend)) is not None:
            prices[backend.name] = price
        if isinstance(backend, BatchBackend):
            backend.use_journal(store)
    store.set_prices({name: price.model_dump() for name, price in prices.items()})


def run_stage(
    store: RunStore,
    backends: Sequence[ChatBackend],
    stage: Callable[..., Awaitable[T]],
    *args: Any,
    **kwargs: Any,
) -> T:
    """Run `stage(store, *args, caller=Caller(store), **kwargs)` to the end, then close the
    backends, whether it finished or failed. Each backend first takes the name its identity
    has in this run (see `RunStore.bind_model`)."""
    bind_backends(store, backends)
    return run_closing(backends, lambda: stage(store, *args, caller=Caller(store), **kwargs))


def run_closing(backends: Sequence[ChatBackend], work: Callable[[], Awaitable[T]]) -> T:
    """The one event loop of an API call: await `work()`, then close the backends, whether it
    finished or failed."""

    async def run() -> T:
        try:
            return await work()
        finally:
            for backend in backends:
                await backend.aclose()

    return loop.run(run())


def store_items(items: Iterable[Item], source: str | Path, run_dir: str | Path) -> RunStore:
    """The run store of `run_dir` holding these items, added in one transaction as they are
    read (and validated, e.g. by `iter_items`); `source` names where they come from. When
    reading them fails, nothing is written: the transaction is rolled back, and a store this
    call created is removed with the directories made for it."""
    made = made_by_opening(run_dir)
    store = RunStore(run_dir)
    try:
        store.add_items(items)
        store.set_meta_default("benchmark", str(source))
    except BaseException:
        store.close()
        remove_made(made)
        raise
    return store


def answer_and_judge(
    store: RunStore,
    candidates: Sequence[ChatBackend],
    judge_backend: ChatBackend,
    *,
    settings: GenerationSettings | None,
    judge_settings: JudgeSettings,
    progress: ProgressSink | None,
    stages: Stages = LOCAL_STAGES,
) -> list[StageSummary]:
    """Every candidate answers the run's items and the judge judges the answers: each answer
    as soon as it is stored, when that can overlap (see `overlaps`), else stage after stage."""
    if stages == LOCAL_STAGES and overlaps(candidates, judge_backend):
        return run_stage(
            store,
            [*candidates, judge_backend],
            answer_and_judge_here,
            candidates,
            judge_backend,
            settings=settings,
            judge_settings=judge_settings,
            progress=progress,
        )
    return [
        run_stage(
            store, candidates, stages.generate, candidates, settings=settings, progress=progress
        ),
        run_stage(
            store,
            [judge_backend],
            stages.judge,
            judge_backend,
            settings=judge_settings,
            progress=progress,
        ),
    ]


def overlaps(candidates: Sequence[ChatBackend], judge_backend: ChatBackend) -> bool:
    """Whether judging each answer as it comes can overlap the candidates' calls: not when
    the judge is one of the candidates (one model serving both, whose prompt cache keeps each
    stage's shared prefix) nor through a Batch API (which sends a stage's calls together)."""
    backends = [*candidates, judge_backend]
    if any(isinstance(backend, BatchBackend) for backend in backends):
        return False
    judge = backend_identity(judge_backend)
    return all(backend_identity(candidate) != judge for candidate in candidates)


def pick_judge(store: RunStore, judge: str | None) -> str:
    """The judge whose verdicts to read: the one named, or the run's only judge."""
    judges = store.judges()
    if judge is not None:
        if judge not in judges:
            raise InputError(
                f"no verdicts by judge '{judge}' (judges: {', '.join(judges) or 'none'})"
            )
        return judge
    if len(judges) != 1:
        found = ", ".join(judges) if judges else "none yet: run `checkbench judge` first"
        raise InputError(f"choose a judge with --judge-id (judges in this run: {found})")
    return judges[0]


def judged_run(
    run_dir: str | Path, judge: str | None
) -> tuple[str, list[Item], list[Response], list[Verdict]]:
    """The judge to read (see `pick_judge`), the run's items, its responses and that judge's
    verdicts."""
    with RunStore.existing(run_dir) as store:
        chosen = pick_judge(store, judge)
        return chosen, store.items(), store.responses(), store.verdicts(chosen)
