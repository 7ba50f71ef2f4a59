"""Instruction synthesis from the whole user side of a conversation, and the binary quality
filter that drops instructions that are ambiguous, too general or need missing files."""

from __future__ import annotations

from typing import Any

from checkbench.convbench.candidate import Candidate, fenced_turn, user_indices
from checkbench.convbench.stages import Decision, StageContext, failure
from checkbench.prompts import fence
from checkbench.steps.ask import Unusable, extract_json

TOO_LONG = "user side too long"
PROBLEMS = ("none", "ambiguous", "too general", "needs missing files")
"""Quality verdicts: "none" keeps the instruction, the others are the reasons to drop it."""

QUALITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"problem": {"type": "string", "enum": list(PROBLEMS)}},
    "required": ["problem"],
    "additionalProperties": False,
}


def instruction_schema(max_chars: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"instruction": {"type": "string", "minLength": 1, "maxLength": max_chars}},
        "required": ["instruction"],
        "additionalProperties": False,
    }


def parse_instruction(raw: str) -> str:
    """The instruction text; an empty or missing one is unusable."""
    data = extract_json(raw)
    text = data.get("instruction") if isinstance(data, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise Unusable('expected {"instruction": "<non-empty text>"}')
    return text.strip()


def parse_problem(raw: str) -> str:
    """One of PROBLEMS."""
    data = extract_json(raw)
    value = data.get("problem") if isinstance(data, dict) else None
    if isinstance(value, str) and value.strip().lower() in PROBLEMS:
        return value.strip().lower()
    raise Unusable(f'expected {{"problem": ...}} with one of {", ".join(PROBLEMS)}')


async def synthesize(ctx: StageContext, candidate: Candidate) -> Decision[str]:
    """One self-contained instruction from every user message, each fenced."""
    conversation = candidate.conversation
    indices = user_indices(conversation)
    size = sum(len(conversation.messages[i].content) for i in indices)
    if size > ctx.settings.max_user_chars:
        return Decision.drop(TOO_LONG, user_chars=size, limit=ctx.settings.max_user_chars)
    user_side = "\n".join(fenced_turn(conversation, i, size) for i in indices)
    chars = ctx.settings.instruction_chars
    answer = await ctx.ask(
        "build_instruction",
        {"user_side": user_side},
        schema=instruction_schema(chars),
        max_tokens=ctx.settings.tokens_for(chars),
        parse=parse_instruction,
    )
    if answer.value is None:
        return failure(answer)
    return Decision.keep(answer.value, instruction=answer.value, attempts=answer.attempts)


async def screen(ctx: StageContext, candidate: Candidate) -> Decision[str]:
    """Keep the instruction unless the model names one of the problems."""
    assert candidate.instruction is not None
    answer = await ctx.ask(
        "build_quality",
        {"instruction": fence("instruction", candidate.instruction)},
        schema=QUALITY_SCHEMA,
        max_tokens=24,
        parse=parse_problem,
    )
    if answer.value is None:
        return failure(answer)
    if answer.value == "none":
        return Decision.keep(candidate.instruction, raw=answer.raw, attempts=answer.attempts)
    return Decision.drop(f"instruction {answer.value}", raw=answer.raw, attempts=answer.attempts)
