"""What runs on the Ray workers: tasks that open a stage's backends once per worker process,
then work off batches of jobs with checkbench's own request building and answer parsing
(`answer_item`, `judge_response`) through a Caller. A worker never touches the run store: the
calls it makes and the results it finds go back to the driver, which writes them."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import pickle
import socket
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend, backend_identity
from checkbench.llm.models_file import find_models_file
from checkbench.steps.caller import LIMITS_META, CallCounters, Caller
from checkbench.steps.loop import new_event_loop
from checkbench.steps.model import StepModel
from checkbench.steps.stage import StageWork
from checkbench.store import CallRecord, RunStore

J = TypeVar("J")
R = TypeVar("R")
JOB = "job"
DONE = "done"
"""The column of a pipeline's input rows (one pickled job each, with the stored answers it
needs) and of its output rows (one pickled BatchDone each)."""


@dataclass(frozen=True)
class ModelRecipe:
    """How a worker opens the backend the driver opened: the same spec and options, under the
    name the run store bound it to and the identity the driver gave it (sampling flags
    included, so the calls' keys are the driver's), with the driver's models file (its text,
    as a worker on another machine has no such file)."""

    spec: str
    name: str
    options: ModelOptions
    models_text: str | None = None
    identity: str | None = None

    @classmethod
    def of(cls, spec: str, backend: ChatBackend, options: ModelOptions) -> ModelRecipe:
        path = find_models_file(options.models_file)
        text = path.read_text(encoding="utf-8") if path is not None else None
        options = replace(options, models_file=None)
        return cls(spec, backend.name, options, text, backend_identity(backend))

    def open(self) -> ChatBackend:
        options = self.options
        if self.models_text is not None:
            digest = hashlib.sha256(self.models_text.encode()).hexdigest()[:16]
            path = Path(tempfile.gettempdir()) / f"checkbench-models-{digest}.toml"
            if not path.is_file():  # written whole, then renamed: actors may race here
                with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as out:
                    out.write(self.models_text)
                os.replace(out.name, path)
            options = replace(options, models_file=path)
        backend = open_backend(self.spec, options)
        backend.name = self.name
        if self.identity is not None:
            backend.identity = self.identity  # type: ignore[attr-defined]
        return backend


@dataclass
class CallJournal:
    """The stand-in for the run store that a worker's Caller records into: calls of one batch,
    kept for the driver, and served again when an identical request comes up in the batch."""

    calls: list[tuple[CallRecord, bool]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    _results: dict[str, str] = field(default_factory=dict)
    """Answers by key, as JSON text (as the run store keeps them)."""

    def cached_result(self, key: str) -> str | None:
        return self._results.get(key)

    def seed(self, results: Mapping[str, str]) -> None:
        """Serve these stored answers as cache hits (without recording them again)."""
        self._results.update(results)

    def record_call(self, call: CallRecord, *, replace: bool = False) -> None:
        self.calls.append((call, replace))
        if call.result is not None:
            self._results[call.key] = call.result

    def get_meta(self, key: str, default: Any = None) -> Any:
        return self.meta.get(key, default)

    def set_meta(self, key: str, value: Any) -> None:
        self.meta[key] = value


@dataclass(frozen=True)
class BatchDone(Generic[R]):
    """One batch worked off: a result per job, the calls made (each with whether it replaces
    an earlier answer), the caller's counters, and the limits of calls at once that the
    worker's backends settled on (model name -> limit) with the worker that keeps them."""

    results: list[R]
    calls: list[tuple[CallRecord, bool]]
    counters: CallCounters
    limits: dict[str, int] = field(default_factory=dict)
    worker: str = ""


@dataclass(frozen=True)
class RemoteWork(Generic[J, R]):
    """A stage's work as the workers do it: the backends it needs (by recipe) and the stage's
    own work on one job (`StageWork`, the same code as in this process)."""

    models: tuple[ModelRecipe, ...]
    work: StageWork[J, R]


@functools.cache
def _event_loop() -> asyncio.AbstractEventLoop:
    """The worker process's event loop, kept for every batch it works off."""
    return new_event_loop()


@functools.cache
def _backend(recipe: ModelRecipe) -> ChatBackend:
    """The backend of `recipe`, opened once per worker process (Ray runs batches as tasks in
    processes it keeps: an actor pool per pipeline cost ~12 s of start-up each on 2 cores),
    kept open for later batches and stages; the process ends with the Ray worker."""
    return recipe.open()


def work_batch(batch: Any, work: RemoteWork[J, R]) -> dict[str, list[bytes]]:
    """A Ray Data task (map_batches): one batch of (job, stored answers it needs) worked off
    with this process's backends."""
    jobs = [pickle.loads(blob) for blob in batch.column(JOB).to_pylist()]
    backends = [_backend(recipe) for recipe in work.models]
    done = _event_loop().run_until_complete(_batch(work.work, backends, jobs))
    return {DONE: [pickle.dumps(done)]}


async def _batch(
    work: StageWork[J, R],
    backends: list[ChatBackend],
    jobs: list[tuple[J, Mapping[str, str]]],
) -> BatchDone[R]:
    journal = CallJournal()
    for _, stored in jobs:
        journal.seed(stored)
    caller = Caller(cast(RunStore, journal))  # the Caller uses only what the journal has
    models = {backend.name: StepModel(backend, caller) for backend in backends}
    results = await asyncio.gather(*(work.run(models, job) for job, _ in jobs))
    limits = journal.get_meta(LIMITS_META, {})
    worker = f"{socket.gethostname()}:{os.getpid()}"
    return BatchDone(list(results), journal.calls, caller.counters, limits, worker)
