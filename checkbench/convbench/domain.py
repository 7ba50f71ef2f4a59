"""Second tier of the domain filter: a zero-shot yes/no on each candidate's first user message."""

from __future__ import annotations

from checkbench.convbench.candidate import Candidate
from checkbench.convbench.decisions import BuildStages, Decision, failure
from checkbench.prompts import fence
from checkbench.steps.answers import Answer, YesNo
from checkbench.steps.prompting import clip

DESCRIPTIONS = {
    "coding": "coding: writing, explaining, fixing, reviewing or running computer programs, "
    "scripts, queries and developer tools",
    "math": "mathematics: solving, explaining or proving problems in arithmetic, algebra, "
    "geometry, calculus, probability, statistics and other fields of mathematics",
    "writing": "writing: creating, editing or improving texts such as stories, poems, essays, "
    "letters, articles and scripts",
}
"""How the built-in domains are described to the model."""

OUT_OF_DOMAIN = "out of domain"


class DomainAnswer(Answer):
    """Whether the message is in the domain."""

    in_domain: YesNo


def describe(domain: str, description: str | None = None) -> str:
    """The domain as the model reads it: the description given, the built-in one, or the name."""
    if description:
        return f"{domain}: {description}"
    return DESCRIPTIONS.get(domain, domain)


async def check_domain(build: BuildStages, candidate: Candidate, domain: str) -> Decision[bool]:
    """Keep the candidate when the model says its first user message is in the domain."""
    message = clip(candidate.conversation.first_user_message, build.settings.domain_chars)
    answer = await build.ask(
        "build_domain",
        {"domain": domain, "message": fence("first user message", message)},
        DomainAnswer,
        max_tokens=16,
    )
    if answer.value is None:
        return failure(answer)
    if answer.value.in_domain == "yes":
        return Decision.keep(True, raw=answer.raw, attempts=answer.attempts)
    return Decision.drop(OUT_OF_DOMAIN, raw=answer.raw, attempts=answer.attempts)
