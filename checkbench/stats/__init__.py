"""Point estimates with seeded bootstrap intervals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_B = 1000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Estimate:
    """A statistic with its percentile bootstrap interval and sample size."""

    value: float
    low: float
    high: float
    n: int

    def scaled(self, factor: float) -> Estimate:
        """The same estimate on another scale (e.g. x100)."""
        return Estimate(self.value * factor, self.low * factor, self.high * factor, self.n)


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(draws, [tail, 100.0 - tail])
    return float(low), float(high)


_CHUNK_CELLS = 1 << 22  # resample indices drawn per chunk: bounds memory for large n


def _group_mean_draws(values: np.ndarray, b: int, rng: np.random.Generator) -> np.ndarray:
    """B bootstrap means of one group, resampling its values with replacement, in chunks."""
    n = len(values)
    rows = max(1, _CHUNK_CELLS // n)
    draws = [
        values[rng.integers(0, n, size=(min(rows, b - start), n))].mean(axis=1)
        for start in range(0, b, rows)
    ]
    return np.concatenate(draws)


def mean_ci(
    values: Sequence[float],
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Estimate:
    """Mean of values with a percentile bootstrap interval over the values (cluster = value)."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    draws = _group_mean_draws(arr, b, np.random.default_rng(seed))
    low, high = _interval(draws, level)
    return Estimate(float(arr.mean()), low, high, int(arr.size))


def macro_mean_ci(
    groups: Sequence[Sequence[float]],
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Estimate:
    """Mean of group means; the bootstrap resamples within each group (stratified)."""
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    n = sum(a.size for a in arrays)
    if not arrays:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    rng = np.random.default_rng(seed)
    draws = np.mean([_group_mean_draws(a, b, rng) for a in arrays], axis=0)
    value = float(np.mean([a.mean() for a in arrays]))
    low, high = _interval(draws, level)
    return Estimate(value, low, high, n)
