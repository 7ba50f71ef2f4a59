"""Listwise rankings from pointwise scores or pairwise judgments, and position bias of a
pairwise judge that saw each pair in both orders."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from checkbench.errors import InputError
from checkbench.schema import Winner

_POINTS_A: dict[str, float] = {"a": 1.0, "b": 0.0, "tie": 0.5}
"""Points of the first-shown response; a tie is half a win for each side."""


class Comparison(BaseModel):
    """One pairwise judgment: response `a` was shown first, `b` second."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    a: str
    b: str
    winner: Winner

    @model_validator(mode="after")
    def _distinct(self) -> Comparison:
        if self.a == self.b:
            raise ValueError("a response cannot be compared with itself")
        return self


def ranks(scores: Mapping[str, float]) -> dict[str, float]:
    """Rank of each id by score, 1 = best; tied scores share the mean of their ranks."""
    ordered = sorted(scores.values(), reverse=True)
    counts = Counter(ordered)
    first: dict[float, int] = {}
    for position, score in enumerate(ordered, start=1):
        first.setdefault(score, position)
    return {key: first[s] + (counts[s] - 1) / 2 for key, s in scores.items()}


def _ids(comparisons: Sequence[Comparison], items: Iterable[str]) -> list[str]:
    return sorted(set(items) | {c.a for c in comparisons} | {c.b for c in comparisons})


def bradley_terry(
    comparisons: Sequence[Comparison],
    *,
    items: Iterable[str] = (),
    prior: float = 0.01,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> dict[str, float]:
    """Bradley-Terry log-strengths (summing to 0) by Newton's method on the log-likelihood
    plus an L2 prior `prior/2 * sum(theta^2)`, which keeps them finite when a response wins
    every comparison. Ties are half a win each; `items` adds ids that were never compared."""
    if prior <= 0:
        raise ValueError("prior must be positive")
    ids = _ids(comparisons, items)
    index = {key: i for i, key in enumerate(ids)}
    wins = np.zeros((len(ids), len(ids)))
    for c in comparisons:
        wins[index[c.a], index[c.b]] += _POINTS_A[c.winner]
        wins[index[c.b], index[c.a]] += 1.0 - _POINTS_A[c.winner]
    games = wins + wins.T
    theta = np.zeros(len(ids))
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        gradient = (wins - games * p).sum(axis=1) - prior * theta
        curvature = games * p * (1.0 - p)
        hessian = curvature - np.diag(curvature.sum(axis=1) + prior)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.abs(step).max(initial=0.0) < tol:
            break
    return dict(zip(ids, theta.tolist(), strict=True))


def _k_factor(k: float, epoch: int, epochs: int) -> float:
    """K of the released IF-RewardBench code: constant for the first 20% of epochs, then
    decaying linearly, never below 1."""
    warm = 0.2 * epochs
    if epoch <= warm:
        return k
    return max(1.0, k * (1.0 - (epoch - warm) / (0.8 * epochs)))


def elo(
    comparisons: Sequence[Comparison],
    *,
    items: Iterable[str] = (),
    k: float = 32.0,
    initial: float = 1200.0,
    epochs: int = 100,
    seed: int = 0,
) -> dict[str, float]:
    """Elo ratings from `epochs` passes over the comparisons with the released code's K schedule;
    ties are draws. Each pass visits the comparisons, sorted first, in a seeded random order, so
    the result depends on the seed but not on the order the comparisons were given in."""
    ordered = sorted(comparisons, key=lambda c: (c.a, c.b, c.winner))
    ratings = dict.fromkeys(_ids(comparisons, items), initial)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        factor = _k_factor(k, epoch, epochs)
        for i in rng.permutation(len(ordered)):
            c = ordered[i]
            expected_a = 1.0 / (1.0 + 10.0 ** ((ratings[c.b] - ratings[c.a]) / 400.0))
            delta = factor * (_POINTS_A[c.winner] - expected_a)
            ratings[c.a] += delta
            ratings[c.b] -= delta
    return ratings


class PositionReport(BaseModel):
    """Consistency of a pairwise judge over pairs it judged in both orders.

    A pair is a consistent win (both orders pick the same response), a consistent tie, or
    inconsistent; `first_position` / `second_position` count the inconsistent pairs where the
    response shown first / second won both times (position bias); the rest of the inconsistent
    pairs mix a tie with a win. Rates are over `pairs` and None when it is 0.
    """

    pairs: int
    single_order: int
    consistent_wins: int
    consistent_ties: int
    inconsistent: int
    first_position: int
    second_position: int
    consistency_rate: float | None
    position_bias_rate: float | None


def _outcome(forward: Comparison, backward: Comparison) -> str:
    if forward.winner == backward.winner:
        return "consistent_ties" if forward.winner == "tie" else f"{forward.winner}_both"
    if "tie" in (forward.winner, backward.winner):
        return "mixed"
    return "consistent_wins"


def position_consistency(comparisons: Iterable[Comparison]) -> PositionReport:
    """Classify every unordered pair judged as (A, B) and as (B, A); a pair judged twice in
    the same order is an input error."""
    orders: dict[frozenset[str], dict[tuple[str, str], Comparison]] = {}
    for c in comparisons:
        shown = orders.setdefault(frozenset((c.a, c.b)), {})
        if (c.a, c.b) in shown:
            raise InputError(f"pair ({c.a!r}, {c.b!r}) judged twice in the same order")
        shown[(c.a, c.b)] = c
    outcomes = Counter(_outcome(*shown.values()) for shown in orders.values() if len(shown) == 2)
    pairs = outcomes.total()
    consistent = outcomes["consistent_wins"] + outcomes["consistent_ties"]
    biased = outcomes["a_both"] + outcomes["b_both"]
    return PositionReport(
        pairs=pairs,
        single_order=len(orders) - pairs,
        consistent_wins=outcomes["consistent_wins"],
        consistent_ties=outcomes["consistent_ties"],
        inconsistent=pairs - consistent,
        first_position=outcomes["a_both"],
        second_position=outcomes["b_both"],
        consistency_rate=consistent / pairs if pairs else None,
        position_bias_rate=biased / pairs if pairs else None,
    )
