"""Second tier of the domain filter: a zero-shot yes/no on each candidate's first user message."""

from __future__ import annotations

from typing import Any

from checkbench.convbench.candidate import Candidate, clip
from checkbench.convbench.stages import Decision, StageContext, failure
from checkbench.prompts import fence
from checkbench.steps.ask import Unusable, extract_json

DESCRIPTIONS = {
    "coding": "coding: writing, explaining, fixing, reviewing or running computer programs, "
    "scripts, queries and developer tools",
    "math": "mathematics: solving, explaining or proving problems in arithmetic, algebra, "
    "geometry, calculus, probability, statistics and other fields of mathematics",
    "writing": "writing: creating, editing or improving texts such as stories, poems, essays, "
    "letters, articles and scripts",
}
"""How the built-in domains are described to the model."""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"in_domain": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["in_domain"],
    "additionalProperties": False,
}
OUT_OF_DOMAIN = "out of domain"
_ANSWERS = {"yes": True, "no": False}


def describe(domain: str, description: str | None = None) -> str:
    """The domain as the model reads it: the description given, the built-in one, or the name."""
    if description:
        return f"{domain}: {description}"
    return DESCRIPTIONS.get(domain, domain)


def parse(raw: str) -> bool:
    """True for {"in_domain": "yes"}, False for "no"; anything else is unusable."""
    data = extract_json(raw)
    value = data.get("in_domain") if isinstance(data, dict) else None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _ANSWERS:
        return _ANSWERS[value.strip().lower()]
    raise Unusable('expected {"in_domain": "yes"} or {"in_domain": "no"}')


async def check_domain(ctx: StageContext, candidate: Candidate, domain: str) -> Decision[bool]:
    """Keep the candidate when the model says its first user message is in the domain."""
    message = clip(candidate.conversation.first_user_message, ctx.settings.domain_chars)
    answer = await ctx.ask(
        "build_domain",
        {"domain": domain, "message": fence("first user message", message)},
        schema=SCHEMA,
        max_tokens=16,
        parse=parse,
    )
    if answer.value is None:
        return failure(answer)
    if answer.value:
        return Decision.keep(True, raw=answer.raw, attempts=answer.attempts)
    return Decision.drop(OUT_OF_DOMAIN, raw=answer.raw, attempts=answer.attempts)
