"""What a stage of a run did, measured from the caller's live counters."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from checkbench.llm.base import ChatBackend
from checkbench.llm.models_file import Price
from checkbench.steps.caller import LIMITS_META, CallCounters, Caller
from checkbench.steps.model import StepModel
from checkbench.steps.pool import run_pool
from checkbench.steps.progress import ProgressSink
from checkbench.store import RunStore, UsageRow

T = TypeVar("T")
J = TypeVar("J")
R = TypeVar("R")
J_contra = TypeVar("J_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)


@dataclass(frozen=True)
class StageSummary:
    """Work found done already, calls made, cache hits, failures and time of one stage.
    `errors` counts failed work (answers, or responses left unscored); `failed_calls` the
    calls of this invocation that failed after every retry; `unscored` lists what is left
    unscored after it."""

    stage: str
    total: int
    already_done: int
    called: int
    cached: int
    errors: int
    duration_s: float
    failed_calls: int = 0
    unscored: tuple[str, ...] = ()
    calls_after: int = 0
    """The id of the call stored last when the stage began: the stage's calls come after it
    (see `RunTally.read`)."""
    counted: str = "total"
    """What `total` counts, as the stage's line says it (e.g. "steps in all")."""

    @property
    def all_failed(self) -> bool:
        """Every model call this invocation made failed (a dead endpoint, a bad key...); a
        stage that made no call, or whose answers only went unscored, did not fail."""
        return every_call_failed(self.called, self.failed_calls)


def every_call_failed(called: int, failed: int) -> bool:
    """The exit rule's test on a stage's model calls of this invocation: some were made and
    every one failed after its retries."""
    return failed > 0 and failed == called


@dataclass
class StageClock:
    """Started when a stage starts; turns the counters' growth into a StageSummary."""

    counters: CallCounters
    started: float = field(default_factory=time.perf_counter)
    calls_after: int = 0
    """The id of the run's call stored last when the clock started (`RunStore.last_call`)."""

    def __post_init__(self) -> None:
        self._calls, self._cached = self.counters.calls, self.counters.cached
        self._errors = self.counters.errors

    def summary(
        self,
        stage: str,
        *,
        total: int,
        already_done: int,
        errors: int,
        unscored: Sequence[str] = (),
        counted: str = "total",
    ) -> StageSummary:
        return StageSummary(
            stage=stage,
            total=total,
            already_done=already_done,
            called=self.counters.calls - self._calls,
            cached=self.counters.cached - self._cached,
            errors=errors,
            duration_s=time.perf_counter() - self.started,
            failed_calls=self.counters.errors - self._errors,
            unscored=tuple(unscored),
            calls_after=self.calls_after,
            counted=counted,
        )


@dataclass
class StageRun:
    """A stage under way: the Caller its model calls go through, the sink its progress goes to
    and the clock that measures it."""

    caller: Caller
    progress: ProgressSink
    clock: StageClock

    @classmethod
    def begin(
        cls, store: RunStore, caller: Caller | None, progress: ProgressSink | None
    ) -> StageRun:
        """Start the clock; a stage given no Caller gets a fresh one on the store, and no sink
        means no display."""
        caller = caller or Caller(store)
        clock = StageClock(caller.counters, calls_after=store.last_call())
        return cls(caller, progress or ProgressSink(), clock)

    def model(self, backend: ChatBackend, *, fresh: bool = False) -> StepModel:
        """`backend` with this stage's Caller (bypassing the cache when `fresh`)."""
        return StepModel(backend, self.caller, fresh=fresh)

    def advance(self) -> None:
        """One unit of work finished."""
        self.progress.advance(self.caller.counters)

    async def pool(
        self, jobs: Iterable[T], workers: int, handle: Callable[[T], Awaitable[None]]
    ) -> None:
        """Run `handle` on every job, `workers` at a time (jobs read as they are worked off),
        advancing after each once what it wrote is committed: a worker never starts another
        job, and pays for another call, while a finished one could still be lost to a kill."""

        async def one(job: T) -> None:
            await handle(job)
            await self.caller.store.durable()
            self.advance()

        await run_pool(jobs, workers, one)

    async def each(
        self, label: str, jobs: Sequence[T], workers: int, handle: Callable[[T], Awaitable[None]]
    ) -> None:
        """Announce `label` with the number of jobs, then work them off in a pool."""
        self.progress.start(label, len(jobs))
        await self.pool(jobs, workers, handle)


class StageWork(Protocol[J_contra, R_co]):
    """A stage's work on one job, wherever it runs: with the stage's own models (by name), or
    on a remote worker with the models it opened (see checkbench.distributed)."""

    async def run(self, models: Mapping[str, StepModel], job: J_contra) -> R_co: ...


class Dispatch(Protocol):
    """Where a stage's jobs are worked off: `done` is given each result, in any order, with
    the stage advanced after each once what `done` wrote is committed."""

    async def __call__(
        self,
        stage: StageRun,
        work: StageWork[J, R],
        models: Mapping[str, StepModel],
        jobs: Iterable[J],
        workers: int,
        done: Callable[[R], None],
    ) -> None: ...


async def dispatch_here(
    stage: StageRun,
    work: StageWork[J, R],
    models: Mapping[str, StepModel],
    jobs: Iterable[J],
    workers: int,
    done: Callable[[R], None],
) -> None:
    """The jobs worked off in this process, `workers` at a time (the local executor)."""

    async def one(job: J) -> None:
        done(await work.run(models, job))

    await stage.pool(jobs, workers, one)


@dataclass(frozen=True)
class RunTally:
    """What a run's store says of a command's calls, read while it is open, for the CLI to
    print: why answers failed (message -> count), the calls and tokens of the command's
    stages per model and role, the limits of calls at once each model's endpoint settled on,
    the prices the run knows (model -> price), and the run's judges."""

    failed_answers: dict[str, int]
    usage: list[UsageRow]
    limits: dict[str, int]
    judges: list[str]
    prices: dict[str, Price] = field(default_factory=dict)

    @classmethod
    def read(cls, store: RunStore, stages: Sequence[StageSummary]) -> RunTally:
        """The tally of the calls made since the first of `stages` began (none: every call
        of the run)."""
        return cls.since(store, min((stage.calls_after for stage in stages), default=0))

    @classmethod
    def since(cls, store: RunStore, after: int) -> RunTally:
        """The tally of the calls stored after the call `after` (0: every call of the run)."""
        return cls(
            failed_answers=store.response_errors(),
            usage=store.usage(after),
            limits=store.get_meta(LIMITS_META, {}),
            judges=store.judges(),
            prices={name: Price.model_validate(p) for name, p in store.prices().items()},
        )
