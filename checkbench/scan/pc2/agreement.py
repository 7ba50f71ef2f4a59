"""How PC^2's pairwise judgments come out over both orders, and how they agree with humans.

A pair is won only when both orders pick the same response, tied when they say tie or disagree
(`stats.preference.two_order_prefer`); the orders' agreement is position consistency.
Agreement with human pairwise preferences is pairwise accuracy: the share of human-preferred
pairs the judge orders the same way (ties and unscored pairs counted apart).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from checkbench.errors import InputError
from checkbench.jsonl import iter_json_lines, validate
from checkbench.schema import PairVerdict
from checkbench.stats import mean_ci
from checkbench.stats.estimate import Stat
from checkbench.stats.preference import Prefer, two_order_prefer
from checkbench.stats.ranking import Comparison, PositionReport, position_consistency
from checkbench.store import RunStore


class HumanPreference(BaseModel):
    """A human judgment: on this item, `chosen`'s response beats `rejected`'s (other fields of
    a line, e.g. the annotator, are ignored)."""

    model_config = ConfigDict(extra="ignore")

    item_id: str
    chosen: str
    rejected: str


class PairAccuracy(BaseModel):
    """Agreement with human preferences; ties and unscored pairs count as not correct."""

    pairs: int
    correct: int
    wrong: int
    ties: int
    unscored: int
    accuracy: Stat


def load_preferences(path: str | Path, store: RunStore) -> list[HumanPreference]:
    """Human pairwise preferences from JSONL, each naming two different models that answered
    the item in this run."""
    answered = {(r.item_id, r.model) for r in store.responses()}
    items = {item_id for item_id, _ in answered}
    preferences = []
    for line, record in iter_json_lines(path):
        preference = validate(HumanPreference, record, path=path, line=line)
        if preference.chosen == preference.rejected:
            raise InputError("chosen and rejected are the same model", path=path, line=line)
        if preference.item_id not in items:
            problem = f"no item '{preference.item_id}' with responses in the run"
            raise InputError(problem, path=path, line=line, field="item_id")
        for side in ("chosen", "rejected"):
            model = getattr(preference, side)
            if (preference.item_id, model) not in answered:
                problem = f"no response of '{model}' to item '{preference.item_id}' in the run"
                raise InputError(problem, path=path, line=line, field=side)
        preferences.append(preference)
    return preferences


def by_item(verdicts: Iterable[PairVerdict]) -> dict[str, list[PairVerdict]]:
    grouped: dict[str, list[PairVerdict]] = defaultdict(list)
    for verdict in verdicts:
        grouped[verdict.item_id].append(verdict)
    return grouped


def position_report(verdicts: Iterable[PairVerdict]) -> PositionReport:
    """Position consistency of the scored judgments (responses told apart by item)."""
    return position_consistency(
        Comparison(a=f"{v.item_id}|{v.a}", b=f"{v.item_id}|{v.b}", winner=v.winner)
        for v in verdicts
        if v.winner is not None
    )


def win_counts(verdicts: Iterable[PairVerdict]) -> dict[str, dict[str, int]]:
    """Per model, its pairs won, tied and lost over both orders (`meta.two_order_prefer`: a
    win needs both orders; disagreeing orders are a tie), and pairs left unscored."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    outcome = {1: "wins", 0: "ties", -1: "losses", None: "unscored"}
    for group in by_item(verdicts).values():
        prefer = two_order_prefer(group)
        for x, y in {tuple(sorted((v.a, v.b))) for v in group}:
            order = prefer(x, y)
            counts[x][outcome[order]] += 1
            counts[y][outcome[None if order is None else -order]] += 1
    keys = ("wins", "ties", "losses", "unscored")
    return {model: {k: c[k] for k in keys} for model, c in sorted(counts.items())}


def human_accuracy(
    preferences: Sequence[HumanPreference], prefer_of: Callable[[str], Prefer]
) -> PairAccuracy:
    """Share of human pairs the judge orders as the human did; `prefer_of(item_id)` gives the
    judge's order of two models' responses to that item."""
    outcome = {1: "correct", -1: "wrong", 0: "tie", None: "unscored"}
    verdicts = [outcome[prefer_of(p.item_id)(p.chosen, p.rejected)] for p in preferences]
    count = Counter(verdicts)
    estimate = mean_ci([float(v == "correct") for v in verdicts])
    return PairAccuracy(
        pairs=len(verdicts),
        correct=count["correct"],
        wrong=count["wrong"],
        ties=count["tie"],
        unscored=count["unscored"],
        accuracy=Stat.from_estimate(estimate),
    )
