"""The exact mean the FB-Bench tables round: a decimal tie stays a tie whatever the order of
summation, where numpy's sum lands one unit below it."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from checkbench.scoring.means import percent
from checkbench.stats import exact_mean, macro_mean_ci, mean_ci

TIE = [0.5, 0.7, 0.9, 0.7, 0.75, 0.0, 0.7, 0.7]
"""Eight scores whose decimal mean is 0.61875, a tie at the authors' four decimals."""


def test_a_constructed_tie_rounds_as_the_authors_table_prints_it() -> None:
    assert sum(Fraction(repr(v)) for v in TIE) / len(TIE) == Fraction("0.61875")
    assert percent(float(np.mean(TIE))) == 61.87  # numpy's sum: one unit below the tie
    assert exact_mean(TIE) == 0.61875 and percent(exact_mean(TIE)) == 61.88
    assert percent(mean_ci(TIE).value) == 61.88
    assert percent(macro_mean_ci([TIE[:3], TIE[3:]]).value) == percent(
        exact_mean([exact_mean(TIE[:3]), exact_mean(TIE[3:])])
    )


def test_order_does_not_move_the_mean_and_binary_ties_round_half_even() -> None:
    assert {exact_mean(TIE[i:] + TIE[:i]) for i in range(len(TIE))} == {0.61875}
    assert percent(exact_mean([0.25, 0.3125])) == 28.12  # 0.28125 exactly: half to even
    assert exact_mean(np.array(TIE)) == math.fsum(TIE) / 8
    assert math.isnan(exact_mean([]))
