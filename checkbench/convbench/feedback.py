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
from checkbench.convbench.decisions import BuildStages, Decision
from checkbench.steps.answers import Answer, choice
from checkbench.steps.model import Structured

LABELS = ("positive", "negative", "neither")
FEEDBACK = ("positive", "negative")
FAILED = "feedback identification failed"
NO_REPLY = "neither (no reply before)"


class FeedbackAnswer(Answer):
    """What the user message is to the reply before it."""

    feedback: choice(LABELS)


def questions(candidate: Candidate) -> list[tuple[int, int]]:
    """(user message index, index of the assistant reply it answers) for every user message
    after the first that follows an assistant reply."""
    messages = candidate.conversation.messages
    pairs = []
    for index in user_indices(candidate.conversation)[1:]:
        before = index - 1
        while before >= 0 and messages[before].role == "system":
            before -= 1
        if before >= 0 and messages[before].role == "assistant":
            pairs.append((index, before))
    return pairs


async def _label(
    build: BuildStages, candidate: Candidate, index: int, reply: int
) -> Structured[FeedbackAnswer]:
    conversation = candidate.conversation
    return await build.ask(
        "build_feedback",
        {
            "reply": fenced_turn(conversation, reply, build.settings.reply_chars),
            "message": fenced_turn(conversation, index, build.settings.max_user_chars),
        },
        FeedbackAnswer,
        max_tokens=16,
    )


async def identify(build: BuildStages, candidate: Candidate) -> Decision[dict[int, str]]:
    """Labels of every later user message; keeps the feedback ones (index -> polarity)."""
    pairs = questions(candidate)
    answers = await asyncio.gather(*(_label(build, candidate, i, r) for i, r in pairs))
    labels: dict[str, Any] = {str(i): NO_REPLY for i in user_indices(candidate.conversation)[1:]}
    problems: dict[str, Any] = {}
    found: dict[int, str] = {}
    for (index, _), answer in zip(pairs, answers, strict=True):
        if answer.value is None:
            labels[str(index)] = None
            problems[str(index)] = {"problem": answer.problem, "raw": answer.raw}
            continue
        labels[str(index)] = answer.value.feedback
        if answer.value.feedback in FEEDBACK:
            found[index] = answer.value.feedback
    if problems:
        return Decision.drop(FAILED, labels=labels, problems=problems)
    return Decision.keep(found, labels=labels)


def label_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many messages got each label, over the stage records of a build."""
    counts: Counter[str] = Counter()
    for record in records:
        for label in record.get("labels", {}).values():
            counts[label if label is not None else "failed"] += 1
    return dict(sorted(counts.items()))
