"""Rankings from scores and pairwise judgments; position bias of both-order judging."""

from __future__ import annotations

import math
import random

import pytest
from pydantic import ValidationError

from checkbench.errors import InputError
from checkbench.schema import Winner
from checkbench.stats.ranking import Comparison, bradley_terry, elo, position_consistency, ranks


def games(a: str, b: str, a_wins: int, b_wins: int, ties: int = 0) -> list[Comparison]:
    return (
        [Comparison(a=a, b=b, winner="a")] * a_wins
        + [Comparison(a=b, b=a, winner="a")] * b_wins
        + [Comparison(a=a, b=b, winner="tie")] * ties
    )


# A > B > C > D, with noise and ties
LEAGUE = (
    games("A", "B", 3, 1)
    + games("B", "C", 3, 1, ties=1)
    + games("C", "D", 3, 1)
    + games("A", "C", 2, 0)
    + games("B", "D", 2, 0, ties=1)
)


def shuffled(comparisons: list[Comparison], seed: int) -> list[Comparison]:
    copy = list(comparisons)
    random.Random(seed).shuffle(copy)
    return copy


def order(scores: dict[str, float]) -> list[str]:
    """Ids best first, leaving out "E" (never compared)."""
    return sorted((k for k in scores if k != "E"), key=lambda k: -scores[k])


def test_ranks_share_ties() -> None:
    assert ranks({"a": 3, "b": 1, "c": 3, "d": 0}) == {"a": 1.5, "c": 1.5, "b": 3, "d": 4}


def test_bradley_terry_recovers_the_order_whatever_the_input_order() -> None:
    strengths = bradley_terry(LEAGUE, items=["E"])
    assert order(strengths) == ["A", "B", "C", "D"]
    assert strengths["E"] == pytest.approx(0.0, abs=1e-12)
    assert sum(strengths.values()) == pytest.approx(0.0, abs=1e-9)
    for seed in range(3):
        again = bradley_terry(shuffled(LEAGUE, seed), items=["E"])
        assert again == pytest.approx(strengths, abs=1e-9)


def test_bradley_terry_stays_finite_under_perfect_separation() -> None:
    strengths = bradley_terry(games("A", "B", 1, 0) + games("B", "C", 1, 0) + games("A", "C", 1, 0))
    assert order(strengths) == ["A", "B", "C"]
    assert all(math.isfinite(v) for v in strengths.values())
    # one game, A beats B: the optimum x = theta_A = -theta_B solves 1 - sigmoid(2x) = prior * x
    x = bradley_terry(games("A", "B", 1, 0), prior=0.1)["A"]
    assert 1 - 1 / (1 + math.exp(-2 * x)) == pytest.approx(0.1 * x)


def test_elo_recovers_the_order_and_ignores_input_order() -> None:
    ratings = elo(LEAGUE, items=["E"])
    assert order(ratings) == ["A", "B", "C", "D"]
    assert ratings["E"] == 1200.0  # never compared: keeps the initial rating
    assert elo(shuffled(LEAGUE, 1), items=["E"]) == ratings
    assert order(elo(LEAGUE, seed=5)) == ["A", "B", "C", "D"]


def both_orders(x: str, y: str, forward: Winner, backward: Winner) -> list[Comparison]:
    return [Comparison(a=x, b=y, winner=forward), Comparison(a=y, b=x, winner=backward)]


def test_position_consistency() -> None:
    comparisons = [
        *both_orders("A", "B", "a", "b"),  # A wins both times
        *both_orders("A", "C", "a", "a"),  # the first shown wins both times
        *both_orders("B", "C", "tie", "tie"),
        *both_orders("B", "D", "b", "a"),  # D wins both times
        *both_orders("C", "D", "a", "tie"),  # mixed
        Comparison(a="A", b="D", winner="a"),  # one order only
    ]
    report = position_consistency(comparisons)
    assert report.model_dump() == {
        "pairs": 5,
        "single_order": 1,
        "consistent_wins": 2,
        "consistent_ties": 1,
        "inconsistent": 2,
        "first_position": 1,
        "second_position": 0,
        "consistency_rate": 0.6,
        "position_bias_rate": 0.2,
    }
    with pytest.raises(InputError, match="judged twice"):
        position_consistency([*comparisons, Comparison(a="A", b="B", winner="b")])


def test_a_response_is_not_compared_with_itself() -> None:
    with pytest.raises(ValidationError):
        Comparison(a="A", b="A", winner="tie")
