"""Generation and judging as Ray Data pipelines, driven from the process that holds the run.

The driver reads the jobs left to do from the run store (what is stored already is never
dispatched), hands them to Ray `chunk` at a time (`ray.data.from_items`, then `map_batches` on
actors that make the model calls), and writes what comes back: only the driver writes
run.sqlite, each batch's calls and results together, so a rerun resumes and the calls table
is complete as with the local executor. Before a candidate's job is dispatched its request is
looked up in the store: an answered one is served from there, as locally. The judge's requests
are built on the workers, whose cache is their batch's calls (they cannot read the store).
"""

from __future__ import annotations

import functools
import itertools
import pickle
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from checkbench.distributed.executor import (
    Executor,
    RayExecutor,
    connect,
    ray_executor,
    ray_module,
)
from checkbench.distributed.worker import (
    DONE,
    JOB,
    Answering,
    BatchDone,
    Judging,
    ModelRecipe,
    StageWorker,
    Work,
)
from checkbench.errors import InputError
from checkbench.generate import (
    GenerationSettings,
    answer_item,
    candidate_request,
    generate_responses,
)
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.judges.stage import judge_responses, record_judge
from checkbench.llm import ModelOptions
from checkbench.llm.base import ChatBackend, backend_identity
from checkbench.llm.batch import BatchBackend
from checkbench.schema import Item, Response
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageRun, StageSummary
from checkbench.store import RunStore

J = TypeVar("J")
R = TypeVar("R")
Stage = Callable[..., Awaitable[StageSummary]]
Job = tuple[str, Item]
"""A generation job: the candidate's name and the item it answers."""


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
    return functools.partial(
        ray_generate, specs=tuple(specs), options=options or ModelOptions(), ray=ray
    )


def judging(executor: Executor, spec: str, options: ModelOptions | None) -> Stage:
    """The judge stage of `executor` for the judge `spec`."""
    ray = ray_executor(executor)
    if ray is None:
        return judge_responses
    ray_module()
    return functools.partial(ray_judge, spec=spec, options=options or ModelOptions(), ray=ray)


def _recipes(
    backends: Sequence[ChatBackend], specs: Sequence[str], options: ModelOptions
) -> tuple[ModelRecipe, ...]:
    """How the workers open the driver's (bound) backends; a Batch API backend cannot be
    spread over workers."""
    if any(isinstance(backend, BatchBackend) for backend in backends):
        raise InputError("--batch and --executor ray cannot be combined: choose one")
    return tuple(ModelRecipe.of(s, b, options) for s, b in zip(specs, backends, strict=True))


def _dispatch(ray: RayExecutor, work: Work[J, R], jobs: list[J]) -> Iterator[BatchDone[R]]:
    """The jobs through one Ray Data pipeline; batches come back as the workers finish them."""
    if not jobs:
        return
    data = connect(ray).data
    rows = data.from_items([{JOB: pickle.dumps(job)} for job in jobs])
    done = rows.map_batches(
        StageWorker,
        fn_constructor_args=(work,),
        batch_size=ray.batch_size,
        batch_format="pyarrow",
        compute=data.ActorPoolStrategy(size=min(ray.workers, len(jobs))),
        num_cpus=ray.worker_cpus,
    )
    for row in done.iter_rows():
        yield pickle.loads(row[DONE])


def _chunks(ray: RayExecutor, jobs: Iterable[J]) -> Iterator[list[J]]:
    """The jobs `ray.chunk` at a time, read as the pipelines take them."""
    pending = iter(jobs)
    while chunk := list(itertools.islice(pending, ray.chunk)):
        yield chunk


async def _split_cached(
    store: RunStore, settings: GenerationSettings, models: Mapping[str, StepModel], jobs: list[Job]
) -> tuple[list[Job], list[Job]]:
    """(jobs for Ray, jobs to answer here): a job whose request the store has answered, or
    that repeats the request of another job of the chunk, is answered here once the chunk is
    stored, from the cache as the local executor would."""
    remote: list[Job] = []
    here: list[Job] = []
    keys: set[str] = set()
    for name, item in jobs:
        backend = models[name].backend
        request = await candidate_request(item, settings, backend)
        key = request.cache_key(backend_identity(backend))
        if key in keys or store.cached_result(key) is not None:
            here.append((name, item))
        else:
            keys.add(key)
            remote.append((name, item))
    return remote, here


async def _settle(stage: StageRun, store: RunStore, done: BatchDone[Any]) -> None:
    """Record a batch's calls, count them, commit, then advance once per job."""
    for record, replace in done.calls:
        store.record_call(record, replace=replace)
    stage.caller.counters.add(done.counters)
    await store.durable()
    for _ in done.results:
        stage.advance()


async def ray_generate(
    store: RunStore,
    backends: Sequence[ChatBackend],
    *,
    specs: Sequence[str],
    options: ModelOptions,
    ray: RayExecutor,
    settings: GenerationSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> StageSummary:
    """`generate_responses` on Ray: every stored item not yet answered by each backend."""
    work = Answering(_recipes(backends, specs, options), settings or GenerationSettings())
    stage = StageRun.begin(store, caller, progress)
    items = store.count_items()
    already = sum(store.count_answered(backend.name) for backend in backends)
    stage.progress.start("generate", items * len(backends) - already)
    models = {backend.name: stage.model(backend) for backend in backends}
    failed = 0

    def put(response: Response) -> None:
        nonlocal failed
        store.put_response(response)
        failed += response.error is not None

    async def answer_here(job: Job) -> None:
        name, item = job
        put(await answer_item(models[name], item, work.settings))

    jobs = ((b.name, item) for b in backends for item in store.unanswered(b.name))
    for chunk in _chunks(ray, jobs):
        remote, here = await _split_cached(store, work.settings, models, chunk)
        for done in _dispatch(ray, work, remote):
            for response in done.results:
                put(response)
            await _settle(stage, store, done)
        await stage.pool(here, max(b.max_concurrency for b in backends), answer_here)
    return stage.clock.summary(
        "generate", total=items * len(backends), already_done=already, errors=failed
    )


async def ray_judge(
    store: RunStore,
    backend: ChatBackend,
    *,
    spec: str,
    options: ModelOptions,
    ray: RayExecutor,
    settings: JudgeSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> StageSummary:
    """`judge_responses` on Ray: every response this judge has not fully scored."""
    settings = settings or JudgeSettings()
    work = Judging(_recipes([backend], [spec], options), settings)
    stage = StageRun.begin(store, caller, progress)
    judge = judge_name(backend, settings)
    record_judge(store, judge, settings)
    total, todo = store.count_judgeable(judge)
    stage.progress.start(f"judge ({judge})", todo)
    unscored: list[str] = []
    for chunk in _chunks(ray, store.unjudged(judge)):
        for done in _dispatch(ray, work, chunk):
            for label, verdicts in done.results:
                store.put_verdicts(verdicts)
                if any(v.passed is None for v in verdicts):
                    unscored.append(label)
            await _settle(stage, store, done)
    return stage.clock.summary(
        "judge",
        total=total,
        already_done=total - todo,
        errors=len(unscored),
        unscored=sorted(unscored),
    )
