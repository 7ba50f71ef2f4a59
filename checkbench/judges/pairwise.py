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
from checkbench.prompts import load_prompt
from checkbench.schema import Item, Message, PairVerdict, Response, Winner
from checkbench.steps.ask import Unusable, ask_structured, extract_json
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageRun, StageSummary
from checkbench.store import RunStore

PROMPT = "pairwise_judge_en"
RECORD_KIND = "pairwise"
REASON_CHARS = 200
_WINNERS: dict[str, Winner] = {"a": "a", "b": "b", "tie": "tie"}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "maxLength": REASON_CHARS},
        "winner": {"type": "string", "enum": ["A", "B", "tie"]},
    },
    "required": ["reason", "winner"],
    "additionalProperties": False,
}


def pairwise_request(item: Item, first: str, second: str) -> ChatRequest:
    """Instructions, conversation and checklist first (shared by every pair of the item), then
    the two replies in the order shown."""
    prompt = load_prompt(PROMPT)
    user = prompt.render(
        conversation=render.conversation(item.messages),
        checklist=render.checklist(item.checklist),
        response_a=render.fence("reply A", first),
        response_b=render.fence("reply B", second),
    )
    return ChatRequest(
        messages=(
            Message(role="system", content=prompt.system),
            Message(role="user", content=user),
        ),
        max_tokens=32 + REASON_CHARS // 2,
        json_schema=SCHEMA,
    )


def parse_pairwise(raw: str) -> tuple[Winner, str]:
    """(winner, reason) from a judge's JSON answer; Unusable says what is wrong with it."""
    data = extract_json(raw)
    if not isinstance(data, dict):
        raise Unusable("expected a JSON object with 'reason' and 'winner'")
    winner = _WINNERS.get(str(data.get("winner", "")).strip().lower())
    if winner is None:
        raise Unusable(f'\'winner\' must be "A", "B" or "tie", got {data.get("winner")!r}')
    return winner, str(data.get("reason", ""))


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


async def judge_pair(
    caller: Caller, backend: ChatBackend, job: PairJob, *, reasks: int = 2
) -> PairVerdict:
    """Judge one ordered pair; an answer still unusable after the re-asks is unscored."""
    request = pairwise_request(job.item, job.first.content or "", job.second.content or "")
    answer = await ask_structured(
        caller, backend, request, parse_pairwise, role=JUDGE, reasks=reasks
    )
    if answer.value is None:
        return job.verdict(
            backend.name,
            winner=None,
            reason=f"unscored: {answer.problem}",
            raw=answer.raw,
            attempts=answer.attempts,
        )
    winner, reason = answer.value
    return job.verdict(backend.name, winner=winner, reason=reason, attempts=answer.attempts)


def both_orders(item: Item, x: Response, y: Response) -> list[PairJob]:
    """The pair (x, y) as shown in each order."""
    return [PairJob(item, x, y), PairJob(item, y, x)]


def stored_pair_verdicts(store: RunStore, judge: str) -> list[PairVerdict]:
    """Every pairwise judgment of a judge in the run."""
    records = store.records(RECORD_KIND).values()
    return [PairVerdict.model_validate(r) for r in records if r["judge"] == judge]


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
    judges = store.get_meta("pairwise_judges", {})
    judges[backend.name] = {"prompts": [load_prompt(PROMPT).tag]}
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
        verdict = await judge_pair(stage.caller, backend, job, reasks=reasks)
        store.put_record(RECORD_KIND, job.key(backend.name), verdict.model_dump())
        unscored += verdict.winner is None

    await stage.each(f"pairwise ({backend.name})", todo, backend.max_concurrency, judge_one)
    return stage.clock.summary(
        "pairwise", total=len(jobs), already_done=len(jobs) - len(todo), errors=unscored
    )
