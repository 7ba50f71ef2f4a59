"""The paired statistics of a comparison, over item score differences d (candidate minus
baseline) with a stratum per item: the headline is the mean of the strata's mean differences
(so it is the difference of the two scores), its interval a bootstrap that resamples items
within strata (as the leaderboard's does, `stats.macro_mean_ci`), its p-value a sign-flip
permutation test; at check level, McNemar's exact test on the discordant checks; across tag
cells, the Benjamini-Hochberg adjustment (false discovery rate).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import binomtest, false_discovery_control

from checkbench.stats import Estimate, macro_mean_ci

_CHUNK = 1 << 21
"""Signs drawn per chunk of the permutation test (random bits): bounds memory for large n."""


def _strata(d: np.ndarray, strata: np.ndarray) -> list[np.ndarray]:
    """The differences of each stratum, strata in order of first appearance."""
    found, first = np.unique(strata, return_index=True)
    return [d[strata == code] for code in found[np.argsort(first)]]


def weights(strata: np.ndarray) -> np.ndarray:
    """Each item's weight in the mean of stratum means: 1 / (strata x its stratum's size)."""
    _, inverse, counts = np.unique(strata, return_inverse=True, return_counts=True)
    return 1.0 / (len(counts) * counts[inverse])


def paired_bootstrap(
    d: np.ndarray, strata: np.ndarray, *, b: int, seed: int, level: float
) -> Estimate:
    """The mean of stratum mean differences with a percentile bootstrap interval, items
    resampled within strata (pairs kept together: a paired bootstrap); no interval below 2."""
    return macro_mean_ci(_strata(d, strata), b=b, seed=seed, level=level)


def sign_flip_p(d: np.ndarray, strata: np.ndarray, *, resamples: int, seed: int) -> float | None:
    """Two-sided p-value of the sign-flip permutation test of "no difference": each item's
    difference flips sign at random (its two scores swap sides), the statistic is the weighted
    mean (`weights`). As scipy.stats.permutation_test(permutation_type="samples") computes a
    randomized one: (hits + 1) / (resamples + 1) per side, twice the smaller, at most 1.
    None without items."""
    if d.size == 0:
        return None
    terms = weights(strata) * d
    observed = terms.sum()
    tolerance = max(abs(observed), 1.0) * 1e-12
    rng = np.random.default_rng(seed)
    greater = less = 0
    rows = max(1, _CHUNK // d.size)
    for start in range(0, resamples, rows):
        size = (min(rows, resamples - start), (d.size + 7) // 8)
        kept = np.unpackbits(rng.integers(0, 256, size=size, dtype=np.uint8), axis=1, count=d.size)
        null = 2 * (kept.astype(np.float64) @ terms) - terms.sum()  # kept signs +1, others -1
        greater += int((null >= observed - tolerance).sum())
        less += int((null <= observed + tolerance).sum())
    sides = np.array([greater, less], dtype=float)
    return float(min(1.0, 2 * ((sides + 1) / (resamples + 1)).min()))


def mcnemar_p(pass_to_fail: int, fail_to_pass: int) -> float | None:
    """McNemar's exact test: the discordant pairs' split against 1/2 (binomial, two-sided);
    None without discordant pairs."""
    discordant = pass_to_fail + fail_to_pass
    if discordant == 0:
        return None
    return float(binomtest(fail_to_pass, discordant, 0.5).pvalue)


def benjamini_hochberg(p_values: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (scipy.stats.false_discovery_control; None stays
    None)."""
    known = [k for k, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    if known:
        found = false_discovery_control([p_values[k] for k in known], method="bh")
        for k, p in zip(known, found.tolist(), strict=True):
            adjusted[k] = float(p)
    return adjusted
