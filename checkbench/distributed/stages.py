"""Stages on Ray: the local stages (generation, judging, a build's decisions) with a
`Dispatch` that works their jobs off as Ray Data pipelines, driven from the process that holds
the run.

The stage reads the jobs left to do from the run store (what is stored already is never
dispatched); `RayDispatch` takes them `chunk` at a time. Each job is first tried here against
the store alone (`ProbeCaller`): one whose every call is stored (a rerun, a repeated request)
is finished here from the cache, as locally. The others go to Ray (`ray.data.from_items`, then
`map_batches` as tasks that run the stage's own work on one job) with the stored answers they
met, which the workers serve from their cache; a job that repeats the missing request of
another job of the chunk waits here for that answer. The driver alone writes run.sqlite, each
batch's calls and results together, so a rerun resumes and the calls table is complete as with
the local executor.
"""

from __future__ import annotations

import functools
import itertools
import pickle
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from checkbench.distributed.executor import (
    Executor,
    RayExecutor,
    connect,
    ray_executor,
    ray_module,
)
from checkbench.distributed.worker import DONE, JOB, BatchDone, ModelRecipe, RemoteWork, work_batch
from checkbench.errors import InputError
from checkbench.generation.responses import generate_responses
from checkbench.judges.stage import judge_responses
from checkbench.llm import ModelOptions
from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult, backend_identity
from checkbench.llm.batch import BatchBackend
from checkbench.steps.caller import LIMITS_META, Caller, CallOutcome
from checkbench.steps.model import StepModel
from checkbench.steps.pool import run_pool
from checkbench.steps.stage import StageRun, StageSummary, StageWork, dispatch_here
from checkbench.store import RunStore

J = TypeVar("J")
R = TypeVar("R")
Stage = Callable[..., Awaitable[StageSummary]]


@dataclass(frozen=True)
class Stages:
    """The generation and judge stages `api.answer_and_judge` runs."""

    generate: Stage = generate_responses
    judge: Stage = judge_responses


LOCAL_STAGES = Stages()
"""The stages of the local executor."""


def generation(executor: Executor, specs: Sequence[str], options: ModelOptions | None) -> Stage:
    """The generation stage of `executor` for the candidates `specs` (as opened, in order)."""
    ray = ray_executor(executor)
    if ray is None:
        return generate_responses
    ray_module()
    return functools.partial(generate_responses, dispatch=RayDispatch(ray, tuple(specs), options))


def judging(executor: Executor, spec: str, options: ModelOptions | None) -> Stage:
    """The judge stage of `executor` for the judge `spec`."""
    ray = ray_executor(executor)
    if ray is None:
        return judge_responses
    ray_module()
    return functools.partial(judge_responses, dispatch=RayDispatch(ray, (spec,), options))


def _recipes(
    backends: Sequence[ChatBackend], specs: Sequence[str], options: ModelOptions
) -> tuple[ModelRecipe, ...]:
    """How the workers open the driver's (bound) backends; a Batch API backend cannot be
    spread over workers."""
    if any(isinstance(backend, BatchBackend) for backend in backends):
        raise InputError("--batch and --executor ray cannot be combined: choose one")
    return tuple(ModelRecipe.of(s, b, options) for s, b in zip(specs, backends, strict=True))


@dataclass
class ProbeCaller(Caller):
    """A Caller that only looks answers up in the store: a request it has not answered (or
    one asked past the cache) fails, and is noted as missed; the stored answers met are kept
    for the worker that will do the job."""

    hits: dict[str, str] = field(default_factory=dict)
    missed: set[str] = field(default_factory=set)

    async def call(
        self, backend: ChatBackend, request: ChatRequest, *, role: str, fresh: bool = False
    ) -> CallOutcome:
        key = request.cache_key(backend_identity(backend))
        stored = None if fresh else self.store.cached_result(key)
        if stored is None:
            self.missed.add(key)
            return CallOutcome(None, "not stored", cached=False, latency_s=0.0)
        self.hits[key] = stored
        self.counters.cached += 1
        return CallOutcome(ChatResult.model_validate_json(stored), None, cached=True, latency_s=0.0)


@dataclass(frozen=True)
class RayDispatch:
    """A `Dispatch` whose jobs needing a model call run on Ray workers. `specs` name the
    stage's models, in the order of the models it is given, and `options` open them."""

    ray: RayExecutor
    specs: tuple[str, ...]
    options: ModelOptions | None = None

    async def __call__(
        self,
        stage: StageRun,
        work: StageWork[J, R],
        models: Mapping[str, StepModel],
        jobs: Iterable[J],
        workers: int,
        done: Callable[[R], None],
    ) -> None:
        backends = [model.backend for model in models.values()]
        remote = RemoteWork(_recipes(backends, self.specs, self.options or ModelOptions()), work)
        pending = iter(jobs)
        limits: dict[str, dict[str, int]] = {}
        while chunk := list(itertools.islice(pending, self.ray.chunk)):
            sent, waiting = await _try_here(stage, work, models, chunk, workers, done)
            for batch in _dispatch(self.ray, remote, sent):
                for result in batch.results:
                    done(result)
                _note_limits(stage.caller.store, limits, batch)
                await _settle(stage, batch)
            await dispatch_here(stage, work, models, waiting, workers, done)


async def _try_here(
    stage: StageRun,
    work: StageWork[J, R],
    models: Mapping[str, StepModel],
    chunk: list[J],
    workers: int,
    done: Callable[[R], None],
) -> tuple[list[tuple[J, dict[str, str]]], list[J]]:
    """Finish here the jobs the store answers; return (the jobs for Ray with the stored
    answers they met, the jobs that wait here for a request one of those makes)."""
    store = stage.caller.store
    sent: list[tuple[J, dict[str, str]]] = []
    waiting: list[J] = []
    asked: set[str] = set()

    async def one(job: J) -> None:
        probe = ProbeCaller(store)
        result = await work.run({n: replace(m, caller=probe) for n, m in models.items()}, job)
        if not probe.missed:
            stage.caller.counters.add(probe.counters)
            done(result)
            await store.durable()
            stage.advance()
        elif probe.missed <= asked:
            waiting.append(job)
        else:
            asked.update(probe.missed)
            sent.append((job, probe.hits))

    await run_pool(chunk, workers, one)
    return sent, waiting


def _dispatch(
    ray: RayExecutor, work: RemoteWork[J, R], jobs: list[tuple[J, dict[str, str]]]
) -> Iterator[BatchDone[R]]:
    """The jobs through one Ray Data pipeline; batches come back as the workers finish them."""
    if not jobs:
        return
    rows = [pickle.dumps(job) for job in jobs]
    for done in pipeline(ray, rows, work_batch, {"work": work}, ray.batch_size):
        yield pickle.loads(done)


def pipeline(
    ray: RayExecutor,
    rows: list[bytes],
    task: Callable[..., dict[str, list[bytes]]],
    arguments: dict[str, Any],
    batch_size: int,
) -> Iterator[bytes]:
    """One Ray Data pipeline: the (pickled) rows, `batch_size` to a `task(batch, **arguments)`
    (up to `ray.workers` at a time), its output rows as they come."""
    data = connect(ray).data
    done = data.from_items([{JOB: row} for row in rows]).map_batches(
        task,
        fn_kwargs=arguments,
        batch_size=batch_size,
        batch_format="pyarrow",
        concurrency=min(ray.workers, len(rows)),
        num_cpus=ray.worker_cpus,
    )
    for row in done.iter_rows():
        yield row[DONE]


def _note_limits(store: RunStore, seen: dict[str, dict[str, int]], done: BatchDone[Any]) -> None:
    """Keep in the store, as the local executor does, the calls at once each model is given:
    the limits its backends settled on, added up over the workers (`seen`: worker -> model ->
    its latest limit)."""
    if not done.limits:
        return
    seen[done.worker] = {**seen.get(done.worker, {}), **done.limits}
    summed: dict[str, int] = {}
    for limits in seen.values():
        for model, limit in limits.items():
            summed[model] = summed.get(model, 0) + limit
    known = store.get_meta(LIMITS_META, {})
    if {**known, **summed} != known:
        store.set_meta(LIMITS_META, {**known, **summed})


async def _settle(stage: StageRun, done: BatchDone[Any]) -> None:
    """Record a batch's calls, count them, commit, then advance once per job."""
    store: RunStore = stage.caller.store
    for record, replaced in done.calls:
        store.record_call(record, replace=replaced)
    stage.caller.counters.add(done.counters)
    await store.durable()
    for _ in done.results:
        stage.advance()
