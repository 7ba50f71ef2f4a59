"""The two bootstrap draws of a group mean (multinomial counts of its distinct values, and
resampled indices) are the same distribution: checked on synthetic data with fixed seeds against
each other, against the exact bootstrap variance, and by the coverage of their intervals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from checkbench.stats import macro_mean_ci, mean_ci, means_by_counts, means_by_index

LEVELS = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # a 4-check weighted checklist's item scores
SHARES = np.array([0.1, 0.15, 0.2, 0.25, 0.3])


def _sample(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice(LEVELS, p=SHARES, size=n)


def _both(values: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    levels, counts = np.unique(values, return_counts=True)
    by_counts = means_by_counts(levels, counts, b, np.random.default_rng(1))
    return by_counts, means_by_index(values, b, np.random.default_rng(2))


@pytest.mark.parametrize("n", [12, 300])
def test_counts_and_indices_draw_the_same_distribution(n: int) -> None:
    values = _sample(np.random.default_rng(n), n)
    by_counts, by_index = _both(values, 20_000)
    exact_sd = values.std() / np.sqrt(n)  # the bootstrap distribution's own spread
    for draws in (by_counts, by_index):
        assert draws.mean() == pytest.approx(values.mean(), abs=0.05 * exact_sd)
        assert draws.std() == pytest.approx(exact_sd, rel=0.03)
    quantiles = [2.5, 25, 50, 75, 97.5]
    gap = np.abs(np.percentile(by_counts, quantiles) - np.percentile(by_index, quantiles))
    assert gap.max() <= 0.1 * exact_sd
    assert sps.ks_2samp(by_counts, by_index).pvalue > 0.01


def test_intervals_cover_the_true_mean_as_often_either_way() -> None:
    rng = np.random.default_rng(7)
    truth = float(LEVELS @ SHARES)
    covered = {"counts": 0, "index": 0}
    datasets = 400
    for _ in range(datasets):
        values = _sample(rng, 100)
        for name, draws in zip(covered, _both(values, 1000), strict=True):
            low, high = np.percentile(draws, [2.5, 97.5])
            covered[name] += low <= truth <= high
    rates = {name: hits / datasets for name, hits in covered.items()}
    assert all(0.92 <= rate <= 0.98 for rate in rates.values()), rates
    assert abs(rates["counts"] - rates["index"]) <= 0.03, rates


def test_few_levels_are_drawn_as_counts_and_continuous_values_as_before() -> None:
    rng = np.random.default_rng(3)
    scores = _sample(rng, 200)
    levels, counts = np.unique(scores, return_counts=True)
    expected = np.percentile(
        means_by_counts(levels, counts, 1000, np.random.default_rng(0)), [2.5, 97.5]
    )
    assert (mean_ci(scores).low, mean_ci(scores).high) == tuple(expected)
    continuous = rng.random(200)  # as many levels as values: the index draws, intervals unchanged
    expected = np.percentile(
        means_by_index(continuous, 1000, np.random.default_rng(0)), [2.5, 97.5]
    )
    assert (mean_ci(continuous).low, mean_ci(continuous).high) == tuple(expected)


def test_the_stratified_interval_matches_index_draws() -> None:
    rng = np.random.default_rng(5)
    groups = [_sample(rng, n) for n in (40, 80, 160)]
    estimate = macro_mean_ci(groups, b=20_000)
    draws = sum(means_by_index(g, 20_000, rng) for g in groups) / len(groups)
    exact_sd = np.sqrt(sum(g.var() / g.size for g in groups)) / len(groups)
    low, high = np.percentile(draws, [2.5, 97.5])
    assert estimate.value == pytest.approx(np.mean([g.mean() for g in groups]))
    assert abs(estimate.low - low) <= 0.1 * exact_sd and abs(estimate.high - high) <= 0.1 * exact_sd
