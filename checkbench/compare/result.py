"""What a comparison finds, as typed results the API returns and `--json` prints.

Scores and deltas are in points (0-100): a delta is the candidate's score minus the
baseline's, on the items both answered.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Delta:
    """A delta with its paired bootstrap interval (None below 2 items), its n and the sign-flip
    test's p-value (None without items)."""

    delta: float | None
    ci: tuple[float, float] | None
    n: int
    p_value: float | None


@dataclass(frozen=True)
class TagDelta(Delta):
    """The delta on the items of one facet value, with the Benjamini-Hochberg adjusted p-value
    (over every tag cell of the comparison)."""

    facet: str
    value: str
    p_adjusted: float | None


@dataclass(frozen=True)
class Flips:
    """Checks judged on both sides of a paired (item, sample): how many, how many went from
    met to unmet and back, and McNemar's exact p-value (None without discordant checks)."""

    checks: int
    pass_to_fail: int
    fail_to_pass: int
    mcnemar_p: float | None


@dataclass(frozen=True)
class FlippedCheck:
    """A check met on one side and not on the other, in one sample of the item."""

    check: str
    text: str
    sample: int
    baseline: bool
    candidate: bool


@dataclass(frozen=True)
class MovedItem:
    """An item whose score moved, with both answers (first sample) and the checks that
    flipped; model outputs are untrusted text."""

    id: str
    baseline_score: float | None
    candidate_score: float | None
    delta: float
    baseline_answer: str | None
    candidate_answer: str | None
    flipped: list[FlippedCheck]


@dataclass(frozen=True)
class Comparison:
    """A candidate against a baseline on the items both answered.

    `judge` names the judge whose verdicts score both sides ("A / B" when `different_judges`).
    `only_baseline` and `only_candidate` count the items one side answered and the other did
    not; `unscored` the paired items with an unscored side (0 under policy "zero", left out
    under "exclude"). `parts` are the headline's parts (FB-Bench: error_correction and
    response_maintenance). `worse`: the candidate is worse beyond chance (p below `alpha`) or
    by more than `margin` points, what `--fail-if-worse` fails on.
    """

    baseline: str
    candidate: str
    judge: str
    different_judges: bool
    protocol: str
    policy: str
    n: int
    only_baseline: int
    only_candidate: int
    unscored: int
    delta: float | None
    ci: tuple[float, float] | None
    p_value: float | None
    level: float
    alpha: float
    margin: float | None
    worse: bool
    parts: dict[str, Delta]
    flips: Flips
    by_tag: list[TagDelta]
    items: list[MovedItem]

    def as_json(self) -> dict[str, Any]:
        """The JSON `compare --json` prints: the fields, each part as a top-level key."""
        found = asdict(self)
        parts = found.pop("parts")
        found.update(parts)
        return found
