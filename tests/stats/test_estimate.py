"""A degenerate interval says why: every item scored the same, a constant judge, too few items;
in the Stat (its JSON), the one-line notation and a table cell."""

from __future__ import annotations

import json

import numpy as np

from checkbench.console.tables import stat_cell
from checkbench.stats.agreement import agreement
from checkbench.stats.estimate import CONSTANT, FEW, SAME, Stat
from checkbench.stats.notation import estimate_text


def test_a_proper_interval_has_no_why_and_none_in_its_json() -> None:
    stat = Stat.from_draws(0.5, np.linspace(0.2, 0.8, 100), 10, 0.95)
    assert stat.why is None and "why" not in json.loads(stat.model_dump_json())


def test_equal_draws_mean_every_item_scored_the_same_or_too_few_items() -> None:
    same = Stat.from_draws(100.0, np.full(100, 100.0), 4, 0.95)
    assert same.why == SAME and same.model_dump()["why"] == SAME
    assert estimate_text(same.value, same.low, same.high, why=same.why) == (
        "100.00 [100.0, 100.0] (every item scored the same)"
    )
    assert Stat.from_draws(1.0, np.full(100, 1.0), 1, 0.95).why == FEW
    assert Stat.from_draws(1.0, np.full(100, np.nan), 1, 0.95).why == FEW


def test_a_judge_that_passes_everything_is_named_constant() -> None:
    # 4 checks, the judge passes all: kappa is 0 in every resample, specificity undefined
    result = agreement([1, 0, 1, 0], [1, 1, 1, 1], b=200)
    assert result.kappa.value == 0.0 and result.kappa.low == result.kappa.high == 0.0
    assert result.kappa.why == CONSTANT and result.specificity.why == CONSTANT
    assert result.agreement.why is None  # 0.5 with a real interval
    cell = stat_cell(result.kappa)
    assert (cell.value, cell.detail) == ("0.000", "[0.00, 0.00]\n(a constant judge)")
