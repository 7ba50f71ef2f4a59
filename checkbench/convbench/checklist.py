"""Checklist synthesis: atomic yes/no requirements for the instruction, each with its source,
"instruction" or "feedback:<message index>" (an index into the logged conversation)."""

from __future__ import annotations

from typing import Any

from checkbench.convbench.candidate import Candidate, fenced_turn
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.convbench.stages import Decision, StageContext, failure
from checkbench.prompts import fence
from checkbench.schema import Check
from checkbench.steps.ask import Unusable, extract_json

INSTRUCTION = "instruction"


def sources(candidate: Candidate) -> list[str]:
    """The sources a requirement may cite: the instruction and each feedback message."""
    return [INSTRUCTION] + [f"feedback:{index}" for index in sorted(candidate.feedback)]


def schema(allowed: list[str], settings: ConvBenchSettings) -> dict[str, Any]:
    check = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": settings.check_chars},
            "source": {"type": "string", "enum": allowed},
        },
        "required": ["text", "source"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "checks": {
                "type": "array",
                "items": check,
                "minItems": settings.min_checks,
                "maxItems": settings.max_checks,
            }
        },
        "required": ["checks"],
        "additionalProperties": False,
    }


def parse_checks(raw: str, allowed: list[str], settings: ConvBenchSettings) -> list[Check]:
    """Checks c1..cn from the answer; exact repeats (ignoring case) are dropped, and an answer
    with an unknown source, an empty text or a count outside the bounds is unusable."""
    data = extract_json(raw)
    entries = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise Unusable('expected {"checks": [{"text": ..., "source": ...}, ...]}')
    checks: list[Check] = []
    seen: set[str] = set()
    for number, entry in enumerate(entries, start=1):
        text = entry.get("text") if isinstance(entry, dict) else None
        source = entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise Unusable(f"requirement {number} has no text")
        if source not in allowed:
            raise Unusable(f"requirement {number} has source {source!r}; use one of {allowed}")
        if text.strip().lower() in seen:
            continue
        seen.add(text.strip().lower())
        checks.append(Check(id=f"c{len(checks) + 1}", text=text.strip(), source=source))
    if not settings.min_checks <= len(checks) <= settings.max_checks:
        raise Unusable(
            f"{len(checks)} distinct requirements; write between {settings.min_checks} and "
            f"{settings.max_checks}"
        )
    return checks


def _feedback_list(candidate: Candidate) -> str:
    if not candidate.feedback:
        return "none (every requirement comes from the instruction)"
    return ", ".join(
        f"feedback:{index} ({polarity} feedback, message {index})"
        for index, polarity in sorted(candidate.feedback.items())
    )


async def synthesize_checklist(ctx: StageContext, candidate: Candidate) -> Decision[list[Check]]:
    """The checklist of one candidate, from its instruction, conversation and feedback ids."""
    assert candidate.instruction is not None
    settings = ctx.settings
    conversation = candidate.conversation
    transcript = "\n".join(
        fenced_turn(
            conversation,
            index,
            settings.reply_chars if message.role == "assistant" else settings.max_user_chars,
        )
        for index, message in enumerate(conversation.messages)
    )
    allowed = sources(candidate)
    answer = await ctx.ask(
        "build_checklist",
        {
            "instruction": fence("instruction", candidate.instruction),
            "transcript": transcript,
            "feedback": _feedback_list(candidate),
            "min_checks": str(settings.min_checks),
            "max_checks": str(settings.max_checks),
        },
        schema=schema(allowed, settings),
        max_tokens=settings.checklist_tokens,
        parse=lambda raw: parse_checks(raw, allowed, settings),
    )
    if answer.value is None:
        return failure(answer)
    return Decision.keep(
        answer.value,
        checks=[check.model_dump() for check in answer.value],
        attempts=answer.attempts,
    )
