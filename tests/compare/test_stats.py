"""The paired statistics against scipy on synthetic data: the paired bootstrap against
scipy.stats.bootstrap(paired=True), the sign-flip test against
scipy.stats.permutation_test(permutation_type="samples"), McNemar against the binomial sum,
Benjamini-Hochberg against its definition."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from scipy import stats as scipy_stats

from checkbench.compare import stats

N = 20_000


def _pairs(n: int, seed: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Item scores of a baseline and a correlated candidate, on a 0-1 grid of checks."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 5, size=n) / 4
    cand = np.clip(
        base + rng.choice([-0.25, 0, 0.25], size=n, p=[0.3 - shift, 0.4, 0.3 + shift]), 0, 1
    )
    return base, cand


def test_paired_bootstrap_matches_scipy_paired_bootstrap() -> None:
    base, cand = _pairs(300, 1, 0.05)
    ours = stats.paired_bootstrap(cand - base, np.zeros(300), b=N, seed=3, level=0.95)
    theirs = scipy_stats.bootstrap(
        (base, cand),
        lambda x, y, axis: np.mean(y - x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=N,
        method="percentile",
        random_state=4,
    ).confidence_interval
    assert ours.value == pytest.approx(np.mean(cand) - np.mean(base))
    spread = np.std(cand - base) / np.sqrt(300)  # a grid step of the deltas is 0.09 spread
    assert ours.low == pytest.approx(theirs.low, abs=0.15 * spread)
    assert ours.high == pytest.approx(theirs.high, abs=0.15 * spread)


def test_stratified_delta_is_the_difference_of_the_macro_means() -> None:
    base, cand = _pairs(90, 2, 0.0)
    strata = np.repeat([0, 1, 2], [10, 30, 50])
    macro = [np.mean(x[strata == s]) for x in (base, cand) for s in range(3)]
    found = stats.paired_bootstrap(cand - base, strata, b=200, seed=0, level=0.95)
    assert found.value == pytest.approx(np.mean(macro[3:]) - np.mean(macro[:3]))
    assert found.low < found.value < found.high


@pytest.mark.parametrize("shift", [0.0, 0.08])
def test_sign_flip_matches_scipy_permutation_test(shift: float) -> None:
    base, cand = _pairs(120, 5, shift)
    strata = np.repeat([0, 1], [40, 80])
    w = stats.weights(strata)
    assert w.sum() == pytest.approx(1.0)
    theirs = scipy_stats.permutation_test(
        (base, cand),
        lambda x, y, axis: np.sum(w * (y - x), axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=N,
        random_state=6,
    ).pvalue
    ours = stats.sign_flip_p(cand - base, strata, resamples=N, seed=7)
    assert ours == pytest.approx(theirs, abs=0.015)


def test_sign_flip_without_differences_is_one_and_without_items_none() -> None:
    assert stats.sign_flip_p(np.zeros(10), np.zeros(10), resamples=500, seed=0) == 1.0
    assert stats.sign_flip_p(np.zeros(0), np.zeros(0), resamples=500, seed=0) is None


@pytest.mark.parametrize(("to_fail", "to_pass"), [(3, 11), (10, 10), (0, 6), (40, 25)])
def test_mcnemar_is_the_exact_binomial_test_of_the_discordant_checks(
    to_fail: int, to_pass: int
) -> None:
    n, low = to_fail + to_pass, min(to_fail, to_pass)
    expected = min(1.0, 2 * sum(comb(n, k) for k in range(low + 1)) / 2**n)
    assert stats.mcnemar_p(to_fail, to_pass) == pytest.approx(expected)
    assert stats.mcnemar_p(0, 0) is None


def test_benjamini_hochberg_by_its_definition() -> None:
    p = [0.01, None, 0.04, 0.03, 0.2]
    found = stats.benjamini_hochberg(p)
    known = sorted(x for x in p if x is not None)
    m = len(known)
    step = [min(1.0, min(known[j] * m / (j + 1) for j in range(i, m))) for i in range(m)]
    by_value = dict(zip(known, step, strict=True))
    assert found == [pytest.approx(by_value[x]) if x is not None else None for x in p]
