"""The judge stage: a checklist judge scores every stored response that it has not scored yet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from checkbench.judges.checklist import JudgeSettings, judge_name, judge_response
from checkbench.llm.base import ChatBackend
from checkbench.schema import Item, Response, Verdict
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import prompt_tag
from checkbench.steps.stage import Dispatch, StageRun, StageSummary, dispatch_here
from checkbench.store import RunStore


def record_judge(store: RunStore, judge: str, settings: JudgeSettings) -> None:
    """Note which prompts and settings produced this judge's verdicts, for reports."""
    kind = "checklist_judge" if settings.mode == "text" else "check_logprob"
    judges = store.get_meta("judges", {})
    judges[judge] = {
        "mode": settings.mode,
        "prompts": [prompt_tag(f"{kind}_{lang}") for lang in ("en", "zh")],
    }
    store.set_meta("judges", judges)


async def judge_responses(
    store: RunStore,
    backend: ChatBackend,
    *,
    settings: JudgeSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
    dispatch: Dispatch = dispatch_here,
) -> StageSummary:
    """Judge every response not yet fully scored by this judge; rerunning resumes. Responses
    are read from the store in batches as the workers take them; `dispatch` says where they
    are judged (here, or on Ray workers); only this process writes the store."""
    settings = settings or JudgeSettings()
    stage = StageRun.begin(store, caller, progress)
    judge = judge_name(backend, settings)
    record_judge(store, judge, settings)
    total, todo = store.count_judgeable(judge)
    unscored: list[str] = []

    def put(judged: tuple[Response, list[Verdict]]) -> None:
        response, verdicts = judged
        store.put_verdicts(verdicts)
        if any(v.passed is None for v in verdicts):
            sample = f", sample {response.sample}" if response.sample else ""
            unscored.append(f"{response.item_id} ({response.model}{sample})")

    stage.progress.start(f"judge ({judge})", todo)
    models = {backend.name: stage.model(backend)}
    work = Judging(backend.name, settings)
    await dispatch(stage, work, models, store.unjudged(judge), backend.max_concurrency, put)
    return stage.clock.summary(
        "judge",
        total=total,
        already_done=total - todo,
        errors=len(unscored),
        unscored=sorted(unscored),
    )


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
