"""PC^2 grading against an item's criteria, with a reason per criterion.

- Pointwise: an integer from 0 to 10 per criterion (an integer scale rather than yes/no, so
  partial fulfilment of a broad criterion counts in proportion); the score is
  sum(weight * points) / 10, from 0 to 100.
- Pairwise: per criterion the better answer, "first", "second" or "tie"; the margin is the weight
  won by the first minus the weight won by the second, and its sign names the winner.

An answer still unusable after the re-asks is unscored, with its problem (and raw answer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from checkbench.judges import render
from checkbench.prompts import fence
from checkbench.scan.pc2.criteria import JUDGE, CriteriaSet, PC2Settings
from checkbench.schema import Item, PairVerdict, Response
from checkbench.steps.answers import Keyed, answer_model, choice, keyed, text
from checkbench.steps.model import StepModel, Structured
from checkbench.steps.prompting import prompt_request

MAX_POINTS = 10
POINTS = range(MAX_POINTS + 1)
Better = Literal["first", "second", "tie"]
BETTER: tuple[Better, ...] = ("first", "second", "tie")
_SIGN = {"first": 1, "second": -1, "tie": 0}


class PointScore(BaseModel):
    """A pointwise grade: 0-100, or None (unscored) with the problem."""

    item_id: str
    model: str
    score: float | None
    points: dict[str, int] = {}
    problem: str | None = None


def weighted_score(criteria: CriteriaSet, points: Mapping[str, int]) -> float:
    """sum(weight * points) / 10: 0 to 100."""
    return sum(c.weight * points[c.id] for c in criteria.criteria) / MAX_POINTS


def margin(criteria: CriteriaSet, better: Mapping[str, Better]) -> int:
    """Weight won by the first answer minus weight won by the second."""
    return sum(c.weight * _SIGN[better[c.id]] for c in criteria.criteria)


@cache
def grade_answer(
    criterion_ids: tuple[str, ...], key: str, allowed: tuple[Any, ...], reason_chars: int
) -> type[Keyed]:
    """One entry per criterion id: a reason and a `key` out of `allowed`."""
    entry = answer_model("Grade", reason=(text(reason_chars), ""), **{key: choice(allowed)})
    return keyed("Grades", criterion_ids, entry)


def _criteria_block(criteria: CriteriaSet) -> str:
    lines = [f"{c.id} ({c.weight}): {c.name}: {c.description}" for c in criteria.criteria]
    return fence("criteria", "\n".join(lines))


async def _grade(
    judge: StepModel,
    settings: PC2Settings,
    prompt: str,
    item: Item,
    criteria: CriteriaSet,
    shown: dict[str, str],
    key: str,
    allowed: Sequence[Any],
) -> tuple[Structured[Keyed], dict[str, Any]]:
    """The answer about the answers shown, and its `key` value per criterion id (empty when
    the answer is unusable)."""
    ids = tuple(c.id for c in criteria.criteria)
    values = {
        "conversation": render.conversation(item.messages),
        "criteria": _criteria_block(criteria),
        **shown,
    }
    tokens = 24 + len(ids) * (24 + settings.reason_chars // 2)
    request = prompt_request(prompt, values, max_tokens=tokens)
    answer_type = grade_answer(ids, key, tuple(allowed), settings.reason_chars)
    answer = await judge.ask(request, answer_type, role=JUDGE, reasks=settings.reasks)
    if answer.value is None:
        return answer, {}
    return answer, {cid: getattr(entry, key) for cid, entry in answer.value.entries().items()}


async def grade_points(
    judge: StepModel, settings: PC2Settings, item: Item, criteria: CriteriaSet, response: Response
) -> PointScore:
    """Grade one response; an absent response or unusable answer is unscored."""
    score = PointScore(item_id=item.id, model=response.model, score=None)
    if response.content is None or response.error is not None:
        problem = f"the candidate produced no response ({response.error})"
        return score.model_copy(update={"problem": problem})
    shown = {"response": fence("answer", response.content)}
    answer, points = await _grade(
        judge, settings, "pc2_pointwise", item, criteria, shown, "score", POINTS
    )
    if answer.value is None:
        return score.model_copy(update={"problem": answer.problem})
    update = {"score": weighted_score(criteria, points), "points": points}
    return score.model_copy(update=update)


async def grade_pair(
    judge: StepModel,
    settings: PC2Settings,
    name: str,
    item: Item,
    criteria: CriteriaSet,
    first: Response,
    second: Response,
) -> PairVerdict:
    """Compare two responses in the order given (first shown as a, second as b); `name` is
    the PC^2 judge's identity in the verdict."""
    verdict = PairVerdict(item_id=item.id, judge=name, a=first.model, b=second.model, winner=None)
    if first.content is None or second.content is None:
        return verdict.model_copy(update={"reason": "unscored: a candidate produced no response"})
    shown = {
        "first": fence("first answer", first.content),
        "second": fence("second answer", second.content),
    }
    answer, better = await _grade(
        judge, settings, "pc2_pairwise", item, criteria, shown, "better", BETTER
    )
    if answer.value is None:
        reason = f"unscored: {answer.problem}"
        update = {"reason": reason, "raw": answer.raw, "attempts": answer.attempts}
        return verdict.model_copy(update=update)
    won = margin(criteria, better)
    return verdict.model_copy(
        update={
            "winner": "a" if won > 0 else "b" if won < 0 else "tie",
            "reason": f"weighted margin {won:+d} (first minus second)",
            "attempts": answer.attempts,
        }
    )
