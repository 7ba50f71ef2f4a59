"""The plumbing of a run, shared by the evaluation flow and the protocols' commands: run stores
filled with items, backends opened and bound to the run's names, stages run on them in the one
event loop, and the judge whose verdicts a run is read by.

Opening backends and running the event loop happen here only: the stages and the protocol
packages receive opened backends and a Caller.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from checkbench.distributed import LOCAL_STAGES, Stages
from checkbench.errors import InputError, disk_full, full_disk_error
from checkbench.generation.requests import GenerationSettings
from checkbench.judges.checklist import JudgeSettings
from checkbench.judges.stage import answer_and_judge_here
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend, backend_identity, backend_price
from checkbench.llm.batch import BatchBackend
from checkbench.llm.models_file import Price
from checkbench.schema import Item, Response, Verdict
from checkbench.steps import loop
from checkbench.steps.budget import Budget, CostLimit, guarded
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.slices import Slice, run_scope
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore, made_by_opening, remove_made
from checkbench.store.files import STORE_FILE
from checkbench.store.labels import model_judges
from checkbench.store.scope import RUN_SCOPE, SCOPES

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
    check_replicas(store, backends)
    for backend in backends:
        backend.name = store.bind_model(backend.name, backend_identity(backend))
        if (price := backend_price(backend)) is not None:
            prices[backend.name] = price
        if isinstance(backend, BatchBackend):
            backend.use_journal(store)
    store.set_prices({name: price.model_dump() for name, price in prices.items()})


SAMPLING_META = "sampling_flags"
"""The meta key holding, by model name, the sampling flags its answers in the run were asked
with (--temperature, --max-tokens, --seed; null where not given)."""


def keep_sampling(store: RunStore, backends: Sequence[ChatBackend], settings: Any) -> None:
    """Refuse in one line a candidate whose answers in this run were asked with other sampling
    flags: the stored answers would stand for answers to another question (the models file's
    sampling is part of a model's identity already). The flags are kept for the next time."""
    flags = {
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "seed": settings.seed,
    }
    bind_backends(store, backends)
    known: dict[str, dict[str, Any]] = store.get_meta(SAMPLING_META, {})
    for backend in backends:
        before = known.get(backend.name)
        if before is not None and before != flags:
            shown = ", ".join(f"{k} {v}" for k, v in before.items() if v is not None) or "none"
            raise InputError(
                f"{backend.name} answered this run with other sampling flags ({shown}): its "
                "stored answers would not answer this question; give the same flags, or use "
                "another run directory",
                path=store.path,
                field="--temperature/--max-tokens/--seed",
            )
    changed = {**known, **{backend.name: flags for backend in backends}}
    if changed != known:
        store.set_meta(SAMPLING_META, changed)


REPLICAS_META = "replicas"
"""The meta key holding, by model identity, every base URL its replicas answered from."""


def check_replicas(store: RunStore, backends: Sequence[ChatBackend]) -> None:
    """Refuse in one line a replica-form model (models file `base_urls`) whose replicas now
    share no server with the ones that answered in this run: they serve another model, whose
    answers would be mixed with the stored ones. Adding or removing replicas is fine; the
    run keeps every replica it used."""
    known: dict[str, list[str]] = store.get_meta(REPLICAS_META, {})
    changed = dict(known)
    for backend in backends:
        urls = getattr(backend, "replica_urls", None)
        if not urls:
            continue
        identity = backend_identity(backend)
        before = known.get(identity, [])
        if before and not set(before) & set(urls):
            raise InputError(
                f"the replicas of {backend.name} ({', '.join(urls)}) share no server with "
                f"those that answered in this run ({', '.join(before)}): name the new servers "
                "under another alias, or use another run directory",
                path=store.path,
                field="base_urls",
            )
        changed[identity] = sorted(set(before) | set(urls))
    if changed != known:
        store.set_meta(REPLICAS_META, changed)


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
    return _filled(run_dir, lambda store: _add_items(store, items, source))


def _add_items(store: RunStore, items: Iterable[Item], source: str | Path) -> None:
    store.add_items(items)
    store.set_meta_default("benchmark", str(source))


def _filled(run_dir: str | Path, fill: Callable[[RunStore], None]) -> RunStore:
    """The run store of `run_dir`, opened once and filled by `fill`; when that fails, the store
    is closed and what opening it made is removed (see `store_items`)."""
    made = made_by_opening(run_dir)
    try:
        store = RunStore(run_dir)
    except BaseException:
        remove_made(made)
        raise
    try:
        fill(store)
    except BaseException as exc:
        with suppress(Exception):
            store.close()
        remove_made(made)
        if disk_full(exc):
            raise full_disk_error(exc, store.path) from None
        raise
    return store


@contextmanager
def undone_unless_called(run_dir: str | Path) -> Iterator[None]:
    """A run directory the block makes is removed again when the block fails before any
    model call was recorded in it (a failed start: a Ray cluster that cannot be joined, a
    model that cannot be opened): a start-up failure leaves nothing behind."""
    made = made_by_opening(run_dir)
    try:
        yield
    except BaseException:
        if made and not _called(Path(run_dir)):
            remove_made(made)
        raise


def _called(run_dir: Path) -> bool:
    """Whether the store in `run_dir` (closed) recorded a model call; False without one."""
    store = run_dir / STORE_FILE
    if not store.is_file():
        return False
    try:
        with closing(
            sqlite3.connect(f"file:{quote(str(store.resolve()))}?mode=ro", uri=True)
        ) as db:
            return db.execute("SELECT 1 FROM calls LIMIT 1").fetchone() is not None
    except sqlite3.Error:
        return True  # cannot tell: keep it


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
    judges = model_judges(judges)  # a person's labels are read only when named
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


def store_slice(
    items: Iterable[Item], source: str | Path, run_dir: str | Path, slice_: Slice | None
) -> RunStore:
    """`store_items` of the items the slice selects, the run's scope recorded (see
    `steps.slices.run_scope`), on one open store; a slice that would leave out items the run
    holds is refused, nothing written. Without a slice, on a run made without one, the items
    stream in."""
    slice_ = slice_ or Slice()

    def fill(store: RunStore) -> None:
        if slice_.items_only and store.scope(RUN_SCOPE) is None:
            _add_items(store, items, source)
            return
        every = list(items)  # validated as they are read: bad input fails before any write
        selected = slice_.select((item.id, item.tags) for item in every)
        chosen = set(selected)
        scope = run_scope(store, selected, slice_)
        _add_items(store, (item for item in every if item.id in chosen), source)
        store.put_record(SCOPES, RUN_SCOPE, scope)

    return _filled(run_dir, fill)


@contextmanager
def within(
    store: RunStore, backends: Sequence[ChatBackend], cost: CostLimit | None
) -> Iterator[None]:
    """The calls made inside counted against the cost limit (none without one), the backends
    bound to their run names first."""
    bind_backends(store, backends)
    with guarded(Budget.start(store, backends, cost or CostLimit())):
        yield
