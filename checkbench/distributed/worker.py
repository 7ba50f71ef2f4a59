"""What runs on the Ray workers: actors that open a stage's backends once, then work off
batches of jobs with checkbench's own request building and answer parsing (`answer_item`,
`judge_response`) through a Caller. A worker never touches the run store: the calls it makes
and the results it finds go back to the driver, which writes them."""

from __future__ import annotations

import asyncio
import hashlib
import os
import pickle
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, cast

from checkbench.generate import GenerationSettings, answer_item
from checkbench.judges.checklist import JudgeSettings, judge_response
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend, ChatResult
from checkbench.llm.models_file import find_models_file
from checkbench.schema import Item, Response, Verdict
from checkbench.steps.caller import CallCounters, Caller
from checkbench.steps.model import StepModel
from checkbench.store import CallRecord, RunStore

J = TypeVar("J")
R = TypeVar("R")
JOB = "job"
DONE = "done"
"""The column of a pipeline's input rows (one pickled job each) and of its output rows (one
pickled BatchDone each)."""


@dataclass(frozen=True)
class ModelRecipe:
    """How a worker opens the backend the driver opened: the same spec and options, under the
    name the run store bound it to, with the driver's models file (its text, as a worker on
    another machine has no such file)."""

    spec: str
    name: str
    options: ModelOptions
    models_text: str | None = None

    @classmethod
    def of(cls, spec: str, backend: ChatBackend, options: ModelOptions) -> ModelRecipe:
        path = find_models_file(options.models_file)
        text = path.read_text(encoding="utf-8") if path is not None else None
        return cls(spec, backend.name, replace(options, models_file=None), text)

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
        return backend


@dataclass
class CallJournal:
    """The stand-in for the run store that a worker's Caller records into: calls of one batch,
    kept for the driver, and served again when an identical request comes up in the batch."""

    calls: list[tuple[CallRecord, bool]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    _results: dict[str, ChatResult] = field(default_factory=dict)

    def cached_result(self, key: str) -> ChatResult | None:
        return self._results.get(key)

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
    an earlier answer) and the caller's counters."""

    results: list[R]
    calls: list[tuple[CallRecord, bool]]
    counters: CallCounters


class Work(Protocol[J, R]):
    """A stage's work as the workers do it: the backends it needs and one job's result."""

    @property
    def models(self) -> tuple[ModelRecipe, ...]: ...

    async def run(self, models: Mapping[str, StepModel], job: J) -> R: ...


@dataclass(frozen=True)
class Answering:
    """Generation: a job is (candidate name, item), its result the Response."""

    models: tuple[ModelRecipe, ...]
    settings: GenerationSettings

    async def run(self, models: Mapping[str, StepModel], job: tuple[str, Item]) -> Response:
        name, item = job
        return await answer_item(models[name], item, self.settings)


@dataclass(frozen=True)
class Judging:
    """Judging: a job is (item, response, tried before), its result the response's label and
    verdicts. What an earlier run left unscored is asked again past the cache, as locally."""

    models: tuple[ModelRecipe, ...]
    settings: JudgeSettings

    async def run(
        self, models: Mapping[str, StepModel], job: tuple[Item, Response, bool]
    ) -> tuple[str, list[Verdict]]:
        item, response, tried = job
        model = models[self.models[0].name]
        model = replace(model, fresh=True) if tried else model
        verdicts = await judge_response(model, item, response, self.settings)
        return f"{response.item_id} ({response.model})", verdicts


class StageWorker(Generic[J, R]):
    """A Ray Data actor (map_batches): its backends and event loop live as long as it does."""

    def __init__(self, work: Work[J, R]) -> None:
        self.work = work
        self.loop = asyncio.new_event_loop()
        self.backends = [recipe.open() for recipe in work.models]

    def __call__(self, batch: Any) -> dict[str, list[bytes]]:
        jobs = [pickle.loads(blob) for blob in batch.column(JOB).to_pylist()]
        done = self.loop.run_until_complete(self._batch(jobs))
        return {DONE: [pickle.dumps(done)]}

    async def _batch(self, jobs: list[J]) -> BatchDone[R]:
        journal = CallJournal()
        caller = Caller(cast(RunStore, journal))  # the Caller uses only what the journal has
        models = {backend.name: StepModel(backend, caller) for backend in self.backends}
        results = await asyncio.gather(*(self.work.run(models, job) for job in jobs))
        return BatchDone(list(results), journal.calls, caller.counters)

    def __del__(self) -> None:
        """Close the backends' connections when Ray retires the actor."""
        for backend in self.backends:
            self.loop.run_until_complete(backend.aclose())
        self.loop.close()
