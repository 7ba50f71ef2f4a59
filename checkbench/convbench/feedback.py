"""Feedback identification: is each later user message positive, negative or no feedback on the
assistant reply before it?

The first user message is never feedback, so it is never asked about. A user message that
does not follow an assistant reply has nothing to judge and is "neither" by rule (recorded as
such, no model call). A conversation where any label stays unusable is dropped, with every
label and problem recorded: a checklist built from a partial view of the feedback would miss
requirements without saying so.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from checkbench.convbench.candidate import Candidate, fenced_turn, user_indices
from checkbench.convbench.stages import Decision, StageContext
from checkbench.steps.ask import Structured, Unusable, extract_json

LABELS = ("positive", "negative", "neither")
FEEDBACK = ("positive", "negative")
FAILED = "feedback identification failed"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"feedback": {"type": "string", "enum": list(LABELS)}},
    "required": ["feedback"],
    "additionalProperties": False,
}


def parse(raw: str) -> str:
    """One of LABELS."""
    data = extract_json(raw)
    value = data.get("feedback") if isinstance(data, dict) else None
    if isinstance(value, str) and value.strip().lower() in LABELS:
        return value.strip().lower()
    raise Unusable('expected {"feedback": "positive", "negative" or "neither"}')


def questions(candidate: Candidate) -> list[tuple[int, int | None]]:
    """(user message index, index of the assistant reply it answers or None) for every user
    message after the first."""
    messages = candidate.conversation.messages
    pairs = []
    for index in user_indices(candidate.conversation)[1:]:
        before = index - 1
        while before >= 0 and messages[before].role == "system":
            before -= 1
        reply = before if before >= 0 and messages[before].role == "assistant" else None
        pairs.append((index, reply))
    return pairs


async def _label(
    ctx: StageContext, candidate: Candidate, index: int, reply: int | None
) -> Structured[str]:
    if reply is None:
        return Structured("neither", None, None, 0)
    conversation = candidate.conversation
    chars = ctx.settings.reply_chars
    return await ctx.ask(
        "build_feedback",
        {
            "reply": fenced_turn(conversation, reply, chars),
            "message": fenced_turn(conversation, index, ctx.settings.max_user_chars),
        },
        schema=SCHEMA,
        max_tokens=16,
        parse=parse,
    )


async def identify(ctx: StageContext, candidate: Candidate) -> Decision[dict[int, str]]:
    """Labels of every later user message; keeps the feedback ones (index -> polarity)."""
    pairs = questions(candidate)
    answers = await asyncio.gather(*(_label(ctx, candidate, i, r) for i, r in pairs))
    labels: dict[str, Any] = {}
    problems: dict[str, Any] = {}
    for (index, reply), answer in zip(pairs, answers, strict=True):
        labels[str(index)] = answer.value if reply is not None else "neither (no reply before)"
        if answer.value is None:
            problems[str(index)] = {"problem": answer.problem, "raw": answer.raw}
    if problems:
        return Decision.drop(FAILED, labels=labels, problems=problems)
    found = {i: a.value for (i, _), a in zip(pairs, answers, strict=True) if a.value in FEEDBACK}
    return Decision.keep(found, labels=labels)


def label_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many messages got each label, over the stage records of a build."""
    counts: Counter[str] = Counter()
    for record in records:
        for label in record.get("labels", {}).values():
            counts[label if label is not None else "failed"] += 1
    return dict(sorted(counts.items()))
