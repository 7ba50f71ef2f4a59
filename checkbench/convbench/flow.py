"""The model-driven stages of a build, in the order each mode runs them, and the items they
make: the domain check (with a domain), then Conv-to-Bench's instruction, quality, feedback
and checklist stages, or FB-Bench curation's drafting."""

from __future__ import annotations

from typing import Any

from checkbench.choices import Curation as Mode
from checkbench.convbench.candidate import Candidate, language, provenance
from checkbench.convbench.checklist import synthesize_checklist
from checkbench.convbench.curate import Concession, draft, feedback_item
from checkbench.convbench.domain import check_domain
from checkbench.convbench.feedback import identify
from checkbench.convbench.instruction import screen, synthesize
from checkbench.convbench.stages import BuildStages, Decision
from checkbench.schema import Check, Item, Message


async def model_stages(
    build: BuildStages,
    mode: Mode,
    domain: tuple[str, str] | None,
    candidates: list[Candidate],
    selection: dict[str, Decision[Concession]],
) -> list[Item]:
    """The stages of `mode` over the candidates; `domain` is the domain's name and how the
    model reads it. Closes the model when done."""
    try:
        name = None
        if domain is not None:
            name, described = domain
            kept = await build.decide(
                "domain", candidates, lambda b, c: check_domain(b, c, described)
            )
            candidates = _kept(kept)
        if mode == "feedback":
            return await _feedback_items(build, name, candidates, selection)
        return await _conv_items(build, name, candidates)
    finally:
        await build.model.backend.aclose()


def _kept(decided: list[tuple[Candidate, Any]]) -> list[Candidate]:
    return [candidate for candidate, _ in decided]


async def _conv_items(
    build: BuildStages, domain: str | None, candidates: list[Candidate]
) -> list[Item]:
    """Conv-to-Bench: instruction, quality, feedback and checklist stages, then the items."""
    synthesized = await build.decide("instruction", candidates, synthesize)
    for candidate, text in synthesized:
        candidate.instruction = text
    screened = await build.decide("quality", _kept(synthesized), screen)
    identified = await build.decide("feedback", _kept(screened), identify)
    for candidate, feedback in identified:
        candidate.feedback = feedback
    checklists = await build.decide("checklist", _kept(identified), synthesize_checklist)
    return [_conv_item(candidate, checks, domain) for candidate, checks in checklists]


async def _feedback_items(
    build: BuildStages,
    domain: str | None,
    candidates: list[Candidate],
    selection: dict[str, Decision[Concession]],
) -> list[Item]:
    """FB-Bench curation: one drafted sample per selected conversation."""

    def concession(candidate: Candidate) -> Concession:
        value = selection[candidate.key].value
        assert value is not None
        return value

    drafts = await build.decide("draft", candidates, lambda b, c: draft(b, c, concession(c)))
    return [
        feedback_item(candidate, concession(candidate), sample, _tags(candidate, domain))
        for candidate, sample in drafts
    ]


def _tags(candidate: Candidate, domain: str | None) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    if domain is not None:
        tags["domain"] = [domain]
    if candidate.cluster is not None:
        tags["cluster"] = [str(candidate.cluster.id)]
        tags["cluster_keywords"] = list(candidate.cluster.keywords)
    return tags


def _conv_item(candidate: Candidate, checks: list[Check], domain: str | None) -> Item:
    assert candidate.instruction is not None
    return Item(
        id=candidate.key,
        messages=[Message(role="user", content=candidate.instruction)],
        checklist=checks,
        rule="mean",
        tags=_tags(candidate, domain),
        meta={
            "language": language(candidate.instruction),
            "provenance": provenance(candidate.conversation),
            "feedback": {str(i): p for i, p in sorted(candidate.feedback.items())},
        },
    )
