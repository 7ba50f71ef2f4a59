"""Checklist synthesis: atomic yes/no requirements for the instruction, each with its source,
"instruction" or "feedback:<message index>" (an index into the logged conversation)."""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated, Any

from pydantic import AfterValidator

from checkbench.convbench.candidate import Candidate, fenced_turn
from checkbench.convbench.decisions import BuildStages, Decision, failure
from checkbench.convbench.junk import sift
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.prompts import fence
from checkbench.schema import Check
from checkbench.steps.answers import Answer, Unusable, answer_model, choice, listing, text

INSTRUCTION = "instruction"
ONLY_JUNK = "only junk checks"


def sources(candidate: Candidate) -> list[str]:
    """The sources a requirement may cite: the instruction and each feedback message."""
    return [INSTRUCTION] + [f"feedback:{index}" for index in sorted(candidate.feedback)]


def distinct_texts(what: str, low: int, high: int, entries: list[Any]) -> list[Any]:
    """The entries without exact repeats of a text (ignoring case: the first one stays), of
    which there must still be `low` to `high`."""
    distinct: dict[str, Any] = {}
    for entry in entries:
        distinct.setdefault(entry.text.lower(), entry)
    if not low <= len(distinct) <= high:
        raise Unusable(f"{len(distinct)} distinct {what}; write between {low} and {high}")
    return list(distinct.values())


class ChecklistAnswer(Answer):
    """Requirements with their sources."""

    checks: list[Any]

    def checklist(self) -> list[Check]:
        """Checks c1..cn."""
        return [
            Check(id=f"c{n}", text=check.text, source=check.source)
            for n, check in enumerate(self.checks, start=1)
        ]


@cache
def checklist_answer(
    allowed: tuple[str, ...], settings: ConvBenchSettings
) -> type[ChecklistAnswer]:
    """`min_checks` to `max_checks` distinct requirements, each citing one of `allowed`."""
    low, high = settings.min_checks, settings.max_checks
    check = answer_model(
        "Requirement", text=text(settings.check_chars, min_chars=1), source=choice(allowed)
    )
    checks = listing(check, min_items=low, max_items=high)
    return answer_model(
        "Checklist",
        ChecklistAnswer,
        checks=Annotated[
            checks, AfterValidator(partial(distinct_texts, "requirements", low, high))
        ],
    )


def _feedback_list(candidate: Candidate) -> str:
    if not candidate.feedback:
        return "none (every requirement comes from the instruction)"
    return ", ".join(
        f"feedback:{index} ({polarity} feedback, message {index})"
        for index, polarity in sorted(candidate.feedback.items())
    )


async def synthesize_checklist(build: BuildStages, candidate: Candidate) -> Decision[list[Check]]:
    """The checklist of one candidate, from its instruction, conversation and feedback ids."""
    assert candidate.instruction is not None
    settings = build.settings
    conversation = candidate.conversation
    transcript = "\n".join(
        fenced_turn(
            conversation,
            index,
            settings.reply_chars if message.role == "assistant" else settings.max_user_chars,
        )
        for index, message in enumerate(conversation.messages)
    )
    answer = await build.ask(
        "build_checklist",
        {
            "instruction": fence("instruction", candidate.instruction),
            "transcript": transcript,
            "feedback": _feedback_list(candidate),
            "min_checks": str(settings.min_checks),
            "max_checks": str(settings.max_checks),
        },
        checklist_answer(tuple(sources(candidate)), settings),
        max_tokens=settings.checklist_tokens,
    )
    if answer.value is None:
        return failure(answer)
    written = answer.value.checklist()
    kept, junk = sift([check.text for check in written], "build_checklist")
    if not kept:
        return Decision.drop(ONLY_JUNK, junk=junk, attempts=answer.attempts)
    checks = [
        written[position].model_copy(update={"id": f"c{n}"})
        for n, position in enumerate(kept, start=1)
    ]
    return Decision.keep(
        checks,
        checks=[check.model_dump() for check in checks],
        junk=junk,
        attempts=answer.attempts,
    )
