"""The pairwise judge: which of two responses follows the instruction (and its checklist) better.

Every pair is judged in both orders, (x, y) and (y, x), so that position bias shows and can be
measured. One JSON call per ordered pair, re-asked a bounded number of times when unusable; a
judgment still unusable after that is stored unscored with the raw answer, never guessed.
Judgments are stored as run-store records, so a rerun skips the pairs already judged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from checkbench.judges import render
from checkbench.judges.checklist import JUDGE
from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.schema import Item, PairVerdict, Response, Winner
from checkbench.steps.answers import Answer, choice, text
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import prompt_request, prompt_tag
from checkbench.steps.stage import StageRun, StageSummary
from checkbench.store import RecordKind, RunStore

PROMPT = "pairwise_judge_en"
RECORD_KIND = RecordKind("pairwise", PairVerdict)
REASON_CHARS = 200
SHOWN: dict[str, Winner] = {"A": "a", "B": "b", "tie": "tie"}
"""The winner as the judge names it (the reply shown first is A) -> the pair's winner."""


class PairAnswer(Answer):
    """Which reply follows the instruction better, with a short reason."""

    reason: text(REASON_CHARS) = ""
    winner: choice(tuple(SHOWN))


def pairwise_request(item: Item, first: str, second: str) -> ChatRequest:
    """Instructions, conversation and checklist first (shared by every pair of the item), then
    the two replies in the order shown."""
    values = {
        "conversation": render.conversation(item.messages),
        "checklist": render.checklist(item.checklist),
        "response_a": render.fence("reply A", first),
        "response_b": render.fence("reply B", second),
    }
    return prompt_request(PROMPT, values, max_tokens=32 + REASON_CHARS // 2)


@dataclass(frozen=True)
class PairJob:
    """One ordered pair to judge: `first` is shown as reply A, `second` as reply B."""

    item: Item
    first: Response
    second: Response

    def verdict(self, judge: str, **fields: Any) -> PairVerdict:
        return PairVerdict(
            item_id=self.item.id, judge=judge, a=self.first.model, b=self.second.model, **fields
        )

    def key(self, judge: str) -> str:
        """The record key: judge, item and the two responses in the order shown."""
        return json.dumps([judge, self.item.id, self.first.model, self.second.model])


async def judge_pair(model: StepModel, job: PairJob, *, reasks: int = 2) -> PairVerdict:
    """Judge one ordered pair; an answer still unusable after the re-asks is unscored."""
    request = pairwise_request(job.item, job.first.content or "", job.second.content or "")
    answer = await model.ask(request, PairAnswer, role=JUDGE, reasks=reasks)
    if answer.value is None:
        return job.verdict(
            model.name,
            winner=None,
            reason=f"unscored: {answer.problem}",
            raw=answer.raw,
            attempts=answer.attempts,
        )
    return job.verdict(
        model.name,
        winner=SHOWN[answer.value.winner],
        reason=answer.value.reason,
        attempts=answer.attempts,
    )


def both_orders(item: Item, x: Response, y: Response) -> list[PairJob]:
    """The pair (x, y) as shown in each order."""
    return [PairJob(item, x, y), PairJob(item, y, x)]


def stored_pair_verdicts(store: RunStore, judge: str) -> list[PairVerdict]:
    """Every pairwise judgment of a judge in the run."""
    return [v for v in store.records(RECORD_KIND).values() if v.judge == judge]


async def judge_pairs(
    store: RunStore,
    backend: ChatBackend,
    jobs: list[PairJob],
    *,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
    reasks: int = 2,
) -> StageSummary:
    """Judge every ordered pair not yet judged usably by this judge; rerunning resumes."""
    stage = StageRun.begin(store, caller, progress)
    model = stage.model(backend)
    judges = store.get_meta("pairwise_judges", {})
    judges[backend.name] = {"prompts": [prompt_tag(PROMPT)]}
    store.set_meta("pairwise_judges", judges)
    done = {
        (v.item_id, v.a, v.b)
        for v in stored_pair_verdicts(store, backend.name)
        if v.winner is not None
    }
    todo = [j for j in jobs if (j.item.id, j.first.model, j.second.model) not in done]
    unscored = 0

    async def judge_one(job: PairJob) -> None:
        nonlocal unscored
        verdict = await judge_pair(model, job, reasks=reasks)
        store.put_record(RECORD_KIND, job.key(backend.name), verdict)
        unscored += verdict.winner is None

    await stage.each(f"pairwise ({backend.name})", todo, backend.max_concurrency, judge_one)
    return stage.clock.summary(
        "pairwise", total=len(jobs), already_done=len(jobs) - len(todo), errors=unscored
    )
