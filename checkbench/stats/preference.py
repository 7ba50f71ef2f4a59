"""How a judge orders two responses: from ranking scores, or from pairwise judgments made in
both orders (a win only when both orders agree)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from checkbench.schema import PairVerdict

Prefer = Callable[[str, str], int | None]
"""How a judge orders responses x and y: 1 if x above y, -1 if below, 0 for a tie, None if it
gave no usable order (counted as a tie and as unscored)."""


def by_scores(scores: Mapping[str, float | None]) -> Prefer:
    """The order that ranking scores give; a response without a score orders nothing."""

    def prefer(x: str, y: str) -> int | None:
        sx, sy = scores[x], scores[y]
        if sx is None or sy is None:
            return None
        return int(sx > sy) - int(sx < sy)

    return prefer


def _picked(verdict: PairVerdict) -> str | None:
    """The response a judgment picked, None for a tie."""
    return {"a": verdict.a, "b": verdict.b}.get(verdict.winner or "")


def two_order_prefer(verdicts: Sequence[PairVerdict]) -> Prefer:
    """The order of x and y that judging (x, y) and (y, x) gives: 1 or -1 when both orders
    pick the same response, 0 for ties and inconsistent pairs, None if an order is unusable."""
    shown = {(v.a, v.b): v for v in verdicts}

    def prefer(x: str, y: str) -> int | None:
        forward, backward = shown.get((x, y)), shown.get((y, x))
        if forward is None or backward is None or None in (forward.winner, backward.winner):
            return None
        first, second = _picked(forward), _picked(backward)
        if first is None or first != second:
            return 0
        return 1 if first == x else -1

    return prefer
