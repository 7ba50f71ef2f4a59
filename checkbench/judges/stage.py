"""The judge stage: a checklist judge scores every stored response that it has not scored yet."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from checkbench.generation.requests import GenerationSettings
from checkbench.generation.responses import AnswerJob, generate_responses
from checkbench.judges.checklist import JudgeSettings, judge_name, judge_response
from checkbench.llm.base import ChatBackend
from checkbench.schema import Item, Response, Verdict
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import prompt_tag
from checkbench.steps.stage import (
    Dispatch,
    StageClock,
    StageRun,
    StageSummary,
    StageWork,
    dispatch_here,
)
from checkbench.store import Answering, RunStore


def record_judge(store: RunStore, judge: str, settings: JudgeSettings) -> None:
    """Note which prompts and settings produced this judge's verdicts, for reports."""
    kind = "checklist_judge" if settings.mode == "text" else "check_logprob"
    judges = store.get_meta("judges", {})
    judges[judge] = {
        "mode": settings.mode,
        "prompts": [prompt_tag(f"{kind}_{lang}") for lang in ("en", "zh")],
    }
    store.set_meta("judges", judges)


@dataclass
class VerdictSink:
    """Where a judge stage's verdicts go: into the store, noting the responses left
    unscored."""

    store: RunStore
    unscored: list[str] = field(default_factory=list)

    def __call__(self, judged: tuple[Response, list[Verdict]]) -> None:
        response, verdicts = judged
        self.store.put_verdicts(verdicts)
        if any(v.passed is None for v in verdicts):
            sample = f", sample {response.sample}" if response.sample else ""
            self.unscored.append(f"{response.item_id} ({response.model}{sample})")


async def judge_responses(
    store: RunStore,
    backend: ChatBackend,
    *,
    settings: JudgeSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
    dispatch: Dispatch = dispatch_here,
    answering: Answering = ((), 0),
    sink: VerdictSink | None = None,
) -> StageSummary:
    """Judge every response not yet fully scored by this judge; rerunning resumes. Responses
    are read from the store in batches as the workers take them; `dispatch` says where they
    are judged (here, or on Ray workers); only this process writes the store. The failed
    answers `answering` names are left out: they are about to be replaced."""
    settings = settings or JudgeSettings()
    stage = StageRun.begin(store, caller, progress)
    judge = judge_name(backend, settings)
    record_judge(store, judge, settings)
    total, todo = store.count_judgeable(judge, answering=answering)
    sink = sink or VerdictSink(store)
    stage.progress.start(f"judge ({judge})", todo)
    models = {backend.name: stage.model(backend)}
    work = Judging(backend.name, settings)
    jobs = store.unjudged(judge, answering=answering)
    await dispatch(stage, work, models, jobs, backend.max_concurrency, sink)
    return stage.clock.summary(
        "judge",
        total=total,
        already_done=total - todo,
        errors=len(sink.unscored),
        unscored=sorted(sink.unscored),
    )


async def answer_and_judge_here(
    store: RunStore,
    candidates: Sequence[ChatBackend],
    backend: ChatBackend,
    *,
    settings: GenerationSettings | None = None,
    judge_settings: JudgeSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> list[StageSummary]:
    """Generation (through `caller`), then judging, in this process, with each new answer
    judged as soon as it is stored, by the worker that made it: the judge's calls overlap the
    candidates', and no answer is read back to be judged. The answers stored before that the
    judge has not fully scored are judged first. Returns the two stages' summaries, as if run
    one after another."""
    settings = settings or GenerationSettings()
    judge_settings = judge_settings or JudgeSettings()
    judging = Caller(store)
    clock = StageClock(judging.counters, calls_after=store.last_call())
    sink = VerdictSink(store)
    earlier = await judge_responses(
        store,
        backend,
        settings=judge_settings,
        caller=judging,
        progress=progress,
        answering=([candidate.name for candidate in candidates], settings.samples),
        sink=sink,
    )
    judge = judge_name(backend, judge_settings)
    each = JudgingEach(StepModel(backend, judging), judge_settings, sink)
    generated = await generate_responses(
        store,
        candidates,
        settings=settings,
        caller=caller,
        progress=progress,
        dispatch=each,
        label=f"generate + judge ({judge})",
    )
    judged = clock.summary(
        "judge",
        total=store.count_judgeable(judge)[0],
        already_done=earlier.already_done,  # a failed answer is never fully scored
        errors=len(sink.unscored),
        unscored=sorted(sink.unscored),
    )
    return [generated, judged]


@dataclass(frozen=True)
class JudgingEach:
    """A generation `Dispatch` (here) whose workers judge each answer once it is stored,
    before they take the next job. There are as many workers as the candidate and the judge
    take calls at once, so neither waits for the other's limit."""

    judge: StepModel
    settings: JudgeSettings
    sink: VerdictSink

    async def __call__(
        self,
        stage: StageRun,
        work: StageWork[AnswerJob, Response],
        models: Mapping[str, StepModel],
        jobs: Iterable[AnswerJob],
        workers: int,
        done: Callable[[Response], None],
    ) -> None:
        async def one(job: AnswerJob) -> None:
            response = await work.run(models, job)
            done(response)
            await stage.caller.store.durable()  # the answer is safe before the judge is paid
            item = job[1]
            if item.checklist:
                verdicts = await judge_response(self.judge, item, response, self.settings)
                self.sink((response, verdicts))

        await stage.pool(jobs, workers + self.judge.max_concurrency, one)


@dataclass(frozen=True)
class Judging:
    """Judging's work on one job (item, response, tried before): the response and its
    verdicts. What an earlier run left unscored is asked once more, past the cache that holds
    the answer that could not be used."""

    judge: str
    settings: JudgeSettings

    async def run(
        self, models: Mapping[str, StepModel], job: tuple[Item, Response, bool]
    ) -> tuple[Response, list[Verdict]]:
        item, response, tried = job
        model = models[self.judge]
        model = replace(model, fresh=True) if tried else model
        return response, await judge_response(model, item, response, self.settings)
