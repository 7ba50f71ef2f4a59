"""PC^2 criteria: the judge compares the auxiliary models' answers to an item and derives 3-9
criteria with integer weights that sum to 100.

A wrong count, a missing name, or a weight that is not a positive integer is re-asked; a sum
other than 100 is fixed by proportional rescaling with largest-remainder rounding (every weight
stays at least 1) and the model's own weights are kept in `rescaled_from`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, Field, StrictInt

from checkbench.choices import PC2Mode as Mode
from checkbench.generation.requests import GenerationSettings, candidate_request
from checkbench.judges import render
from checkbench.prompts import fence
from checkbench.schema import Item
from checkbench.steps.answers import Answer, answer_model, listing, text
from checkbench.steps.model import StepModel
from checkbench.steps.prompting import clip, prompt_request

AUX, JUDGE = "pc2-aux", "pc2-judge"
MIN_CRITERIA, MAX_CRITERIA, TOTAL_WEIGHT = 3, 9, 100


@dataclass(frozen=True)
class PC2Settings:
    """Which variants run and how long the answers may be; `max_criteria` (3-9) caps the
    criteria asked for."""

    mode: Mode = "both"
    max_criteria: int = MAX_CRITERIA
    aux_max_tokens: int = 512
    answer_chars: int = 4000
    analysis_chars: int = 400
    name_chars: int = 60
    description_chars: int = 200
    reason_chars: int = 160
    reasks: int = 2

    def __post_init__(self) -> None:
        if not MIN_CRITERIA <= self.max_criteria <= MAX_CRITERIA:
            raise ValueError(f"max_criteria must be {MIN_CRITERIA} to {MAX_CRITERIA}")


class Criterion(BaseModel):
    """One weighted criterion; `id` (k1, k2, ...) keys the judge's answers."""

    id: str
    name: str
    description: str
    weight: int


class CriteriaSet(BaseModel):
    """An item's criteria; `rescaled_from` holds the model's weights when they were fixed up."""

    criteria: list[Criterion]
    rescaled_from: list[int] | None = None


def fix_weights(weights: Sequence[int]) -> list[int]:
    """Weights rescaled to sum to 100: exact shares rounded down, the leftover points to the
    largest remainders (earlier criteria first on ties); a weight that would be 0 takes one
    point from the largest. Weights that already sum to 100 are returned unchanged."""
    total = sum(weights)
    if total == TOTAL_WEIGHT:
        return list(weights)
    exact = [Fraction(w * TOTAL_WEIGHT, total) for w in weights]
    fixed = [math.floor(share) for share in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (fixed[i] - exact[i], i))
    for i in by_remainder[: TOTAL_WEIGHT - sum(fixed)]:
        fixed[i] += 1
    for i in range(len(fixed)):
        while fixed[i] < 1:
            largest = max(range(len(fixed)), key=lambda j: (fixed[j], -j))
            fixed[largest] -= 1
            fixed[i] += 1
    return fixed


class CriteriaAnswer(Answer):
    """The judge's analysis of the answers and its criteria (see `criteria_answer`)."""

    analysis: str = ""
    criteria: list[Any]

    def criteria_set(self) -> CriteriaSet:
        """Criteria k1..kn, weights fixed up to sum to 100."""
        criteria = [
            Criterion(id=f"k{n}", name=c.name, description=c.description, weight=c.weight)
            for n, c in enumerate(self.criteria, start=1)
        ]
        weights = [c.weight for c in criteria]
        fixed = fix_weights(weights)
        if fixed == weights:
            return CriteriaSet(criteria=criteria)
        pairs = zip(criteria, fixed, strict=True)
        rescaled = [c.model_copy(update={"weight": weight}) for c, weight in pairs]
        return CriteriaSet(criteria=rescaled, rescaled_from=weights)


@cache
def criteria_answer(settings: PC2Settings) -> type[CriteriaAnswer]:
    """`MIN_CRITERIA` to `max_criteria` criteria, each named, with a weight from 1 to 100."""
    criterion = answer_model(
        "Criterion",
        name=text(settings.name_chars, min_chars=1),
        description=(text(settings.description_chars), ""),
        weight=Annotated[StrictInt, Field(ge=1, le=TOTAL_WEIGHT)],
    )
    return answer_model(
        "Criteria",
        CriteriaAnswer,
        analysis=(text(settings.analysis_chars), ""),
        criteria=listing(criterion, min_items=MIN_CRITERIA, max_items=settings.max_criteria),
    )


async def aux_answers(aux: Sequence[StepModel], item: Item, settings: PC2Settings) -> list[str]:
    """The auxiliary models' answers to the item (failed and empty ones left out)."""
    generation = GenerationSettings(max_tokens=settings.aux_max_tokens)
    answers = []
    for model in aux:
        request = await candidate_request(item, generation, model.backend)
        outcome = await model.call(request, role=AUX)
        if outcome.result is not None and outcome.result.content.strip():
            answers.append(outcome.result.content)
    return answers


async def derive_criteria(
    judge: StepModel, aux: Sequence[StepModel], item: Item, settings: PC2Settings
) -> dict[str, Any]:
    """The record of an item's criteria: {"criteria": CriteriaSet JSON, ...} or a problem."""
    answers = await aux_answers(aux, item, settings)
    if not answers:
        return {"problem": "no auxiliary model answered"}
    s = settings
    values = {
        "max_criteria": str(s.max_criteria),
        "conversation": render.conversation(item.messages),
        "answers": "\n".join(
            fence(f"answer {n}", clip(answer, s.answer_chars))
            for n, answer in enumerate(answers, start=1)
        ),
    }
    tokens = 40 + (s.analysis_chars + s.max_criteria * (s.name_chars + s.description_chars)) // 2
    request = prompt_request("pc2_criteria", values, max_tokens=tokens)
    answer = await judge.ask(request, criteria_answer(s), role=JUDGE, reasks=s.reasks)
    if answer.value is None:
        return {"problem": answer.problem, "raw": answer.raw}
    return {"criteria": answer.value.criteria_set().model_dump(), "aux_answers": len(answers)}
