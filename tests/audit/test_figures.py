"""The benchmark's figures: separability read from the leaderboard's own intervals, the paired
version, rank stability (Kendall tau_b as scipy gives it) and the effective number of checks."""

from __future__ import annotations

import warnings
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from checkbench import api
from checkbench.audit.figures import (
    Board,
    effective_checks,
    kendall_tau_b,
    paired_separability,
    rank_stability,
    separability,
)
from checkbench.audit.run import audit_run
from checkbench.stats import mean_ci
from tests.audit.runs import import_fbbench, needs_fbbench


def _board(cells: list[tuple[str, float | None, tuple[float, float] | None]]) -> Board:
    rows = [SimpleNamespace(model=m, overall=s, overall_ci=ci) for m, s, ci in cells]
    return Board.of(SimpleNamespace(rows=rows, policy="zero"))


def test_separability_counts_the_pairs_whose_intervals_do_not_overlap() -> None:
    board = _board(
        [
            ("a", 80.0, (75.0, 85.0)),
            ("b", 70.0, (66.0, 74.0)),
            ("c", 72.0, (69.0, 74.5)),
            ("d", 50.0, None),
        ]
    )
    figure = separability(board)
    assert (figure.value, figure.n) == (pytest.approx(2 / 3), 3)  # a-b, a-c apart; b-c overlap
    assert separability(_board([("a", 1.0, None)])).value is None


@needs_fbbench
def test_separability_is_read_from_the_intervals_the_leaderboard_prints(tmp_path: Path) -> None:
    run = import_fbbench(tmp_path / "run")
    rows = api.leaderboard(run).scores.rows
    apart = [
        x.overall_ci[0] > y.overall_ci[1] or y.overall_ci[0] > x.overall_ci[1]
        for x, y in combinations(rows, 2)
    ]
    report = audit_run(run)
    assert report.full.separability.value == pytest.approx(sum(apart) / len(apart))
    assert report.full.separability.n == len(apart) == 15


def test_kendall_tau_b_is_scipys_for_every_resample() -> None:
    rng = np.random.default_rng(0)
    x = np.array([0.1, 0.5, 0.5, 0.9, 0.3, 0.7])
    draws = rng.integers(0, 4, size=(50, 6)).astype(float)
    draws[0] = 1.0  # constant: undefined
    expected = [stats.kendalltau(x, draw).statistic for draw in draws]
    np.testing.assert_allclose(kendall_tau_b(x, draws), expected, equal_nan=True)


def test_paired_comparison_separates_what_the_intervals_cannot() -> None:
    base = np.random.default_rng(1).random(200)
    table = np.vstack([base, base + 0.02])  # m1 always a little above m0
    each = [mean_ci(row, seed=0) for row in table]
    assert each[1].low < each[0].high  # the two intervals overlap
    paired = paired_separability(table, 500, 0)
    assert (paired.value, paired.n) == (1.0, 1)


def test_rank_stability_is_one_for_models_far_apart_and_lower_for_close_ones() -> None:
    rng = np.random.default_rng(2)
    apart = np.vstack([rng.random(100) * 0.1 + k for k in range(4)])
    close = rng.random((4, 100))
    assert rank_stability(apart, 200, 0).value == pytest.approx(1.0)
    stable = rank_stability(close, 200, 0)
    assert stable.value is not None and stable.value < 0.9
    assert stable.low is not None and stable.low <= stable.value <= stable.high


def test_effective_checks_is_the_participation_ratio_of_the_correlation_eigenvalues() -> None:
    rng = np.random.default_rng(3)
    rates = rng.random((40, 6))
    rates[0] = 1.0  # constant: left out
    kept = rates[1:]
    eigen = np.linalg.eigvalsh(np.corrcoef(kept))
    expected = eigen.sum() ** 2 / (eigen**2).sum()
    figure = effective_checks(rates, 100, 0)
    assert figure.value == pytest.approx(expected)
    assert figure.n == 39
    one_direction = np.outer(rng.random(30) + 0.5, np.arange(6.0))
    assert effective_checks(one_direction, 100, 0).value == pytest.approx(1.0)


def test_a_check_no_model_has_is_left_out_of_effective_checks_without_a_warning() -> None:
    rates = np.random.default_rng(4).random((20, 5))
    unjudged = np.vstack([rates, np.full((1, 5), np.nan)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would reach the user's terminal
        figure = effective_checks(unjudged, 100, 0)
    assert figure.value == pytest.approx(effective_checks(rates, 100, 0).value)
    assert figure.n == 20
