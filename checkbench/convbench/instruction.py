"""Instruction synthesis from the whole user side of a conversation, and the binary quality
filter that drops instructions that are ambiguous, too general or need missing files."""

from __future__ import annotations

from functools import cache

from checkbench.convbench.candidate import Candidate, fenced_turn, user_indices
from checkbench.convbench.decisions import BuildStages, Decision, failure
from checkbench.convbench.junk import junk_reason
from checkbench.prompts import fence
from checkbench.steps.answers import Answer, answer_model, choice, text

TOO_LONG = "user side too long"
PROBLEMS = ("none", "ambiguous", "too general", "needs missing files")
"""Quality verdicts: "none" keeps the instruction, the others are the reasons to drop it."""


class QualityAnswer(Answer):
    """The instruction's problem, if any."""

    problem: choice(PROBLEMS)


@cache
def instruction_answer(max_chars: int) -> type[Answer]:
    """The synthesized instruction, of at most `max_chars` characters."""
    return answer_model("Instruction", instruction=text(max_chars, min_chars=1))


async def synthesize(build: BuildStages, candidate: Candidate) -> Decision[str]:
    """One self-contained instruction from every user message, each fenced."""
    conversation = candidate.conversation
    indices = user_indices(conversation)
    size = sum(len(conversation.messages[i].content) for i in indices)
    if size > build.settings.max_user_chars:
        return Decision.drop(TOO_LONG, user_chars=size, limit=build.settings.max_user_chars)
    user_side = "\n".join(fenced_turn(conversation, i, size) for i in indices)
    chars = build.settings.instruction_chars
    answer = await build.ask(
        "build_instruction",
        {"user_side": user_side},
        instruction_answer(chars),
        max_tokens=build.settings.tokens_for(chars),
    )
    if answer.value is None:
        return failure(answer)
    text = answer.value.instruction
    junk = junk_reason(text, "build_instruction")
    if junk is not None:
        return Decision.drop(f"instruction {junk}", instruction=text, attempts=answer.attempts)
    return Decision.keep(text, instruction=text, attempts=answer.attempts)


async def screen(build: BuildStages, candidate: Candidate) -> Decision[str]:
    """Keep the instruction unless the model names one of the problems."""
    assert candidate.instruction is not None
    answer = await build.ask(
        "build_quality",
        {"instruction": fence("instruction", candidate.instruction)},
        QualityAnswer,
        max_tokens=24,
    )
    if answer.value is None:
        return failure(answer)
    found = answer.value.problem
    if found == "none":
        return Decision.keep(candidate.instruction, raw=answer.raw, attempts=answer.attempts)
    return Decision.drop(f"instruction {found}", raw=answer.raw, attempts=answer.attempts)
