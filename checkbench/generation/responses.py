"""Candidate models answer a benchmark's items into a run store: one answer per (item, sample),
resumed where a run stopped, made here or on Ray workers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from checkbench.generation.requests import GenerationSettings, candidate_request
from checkbench.llm.base import ChatBackend
from checkbench.schema import Item, Response, Usage
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import Dispatch, StageRun, StageSummary, dispatch_here
from checkbench.store import RunStore

CANDIDATE = "candidate"
"""The role of a candidate's calls in the run's usage."""


async def answer_item(
    model: StepModel, item: Item, settings: GenerationSettings, sample: int = 0
) -> Response:
    """One candidate's answer (sample number `sample`) to one item; a call that failed is a
    Response with its error."""
    request = await candidate_request(item, settings, model.backend, sample)
    outcome = await model.call(request, role=CANDIDATE)
    if outcome.result is None:
        return Response(item_id=item.id, model=model.name, sample=sample, error=outcome.error)
    result = outcome.result
    return Response(
        item_id=item.id,
        model=model.name,
        sample=sample,
        content=result.content,
        usage=Usage(prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens),
        latency_s=outcome.latency_s,
    )


async def generate_responses(
    store: RunStore,
    backends: Sequence[ChatBackend],
    *,
    settings: GenerationSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
    dispatch: Dispatch = dispatch_here,
    label: str = "generate",
) -> StageSummary:
    """Answer every stored item `settings.samples` times with every backend, skipping
    answers already in the store. (item, sample) pairs are read from the store in batches as
    the workers take them, so memory does not grow with the benchmark. `dispatch` says where
    the answers are made (here, or on Ray workers); only this process writes the store.
    `label` names the stage on the progress bar."""
    settings = settings or GenerationSettings()
    samples = settings.samples
    stage = StageRun.begin(store, caller, progress)
    total = store.count_items() * samples * len(backends)
    already = sum(store.count_answered(backend.name, samples) for backend in backends)
    stage.progress.start(label, total - already)
    models = {backend.name: stage.model(backend) for backend in backends}
    work = Answering(settings)
    failed = 0

    def put(response: Response) -> None:
        nonlocal failed
        store.put_response(response)
        failed += response.error is not None

    def jobs(name: str) -> Iterable[AnswerJob]:
        return ((name, item, sample) for item, sample in store.unanswered(name, samples))

    await asyncio.gather(
        *(dispatch(stage, work, models, jobs(b.name), b.max_concurrency, put) for b in backends)
    )
    return stage.clock.summary("generate", total=total, already_done=already, errors=failed)


AnswerJob = tuple[str, Item, int]
"""A generation job: the candidate's name, the item and the sample number."""


@dataclass(frozen=True)
class Answering:
    """Generation's work on one job: the candidate's answer (a Response)."""

    settings: GenerationSettings

    async def run(self, models: Mapping[str, StepModel], job: AnswerJob) -> Response:
        name, item, sample = job
        return await answer_item(models[name], item, self.settings, sample)
