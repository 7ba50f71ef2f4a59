"""The judge stage: a checklist judge scores every stored response that it has not scored yet."""

from __future__ import annotations

from checkbench.judges.checklist import JudgeSettings, judge_name, judge_response
from checkbench.llm.base import ChatBackend
from checkbench.schema import Item, Response
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import prompt_tag
from checkbench.steps.stage import StageRun, StageSummary
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
) -> StageSummary:
    """Judge every response not yet fully scored by this judge; rerunning resumes. Responses
    are read from the store in batches as the workers take them."""
    settings = settings or JudgeSettings()
    stage = StageRun.begin(store, caller, progress)
    model = stage.model(backend)
    judge = judge_name(backend, settings)
    record_judge(store, judge, settings)
    total, todo = store.count_judgeable(judge)
    again = stage.model(backend, fresh=True)
    unscored: list[str] = []

    async def judge_one(job: tuple[Item, Response, bool]) -> None:
        item, response, tried = job
        # left unscored by an earlier run: asked once more, past the cache that holds the
        # answer that could not be used
        verdicts = await judge_response(again if tried else model, item, response, settings)
        store.put_verdicts(verdicts)
        if any(v.passed is None for v in verdicts):
            unscored.append(f"{response.item_id} ({response.model})")

    stage.progress.start(f"judge ({judge})", todo)
    await stage.pool(store.unjudged(judge), backend.max_concurrency, judge_one)
    return stage.clock.summary(
        "judge",
        total=total,
        already_done=total - todo,
        errors=len(unscored),
        unscored=sorted(unscored),
    )
