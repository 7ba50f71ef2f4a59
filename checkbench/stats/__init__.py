"""Point estimates with seeded bootstrap intervals.

An interval needs at least two items to resample: with fewer, `low` and `high` are NaN
("n too small"), never a zero-width interval that pretends certainty. The stratified (macro)
bootstrap resamples within each stratum; a stratum of one item cannot be resampled within, so
the one-item strata are pooled and resampled across each other (docs/protocols.md, section 0).
A group's draws are multinomial counts of its distinct values when it has few (item scores mostly
do), else resampled indices: the same bootstrap distribution, at a fraction of the cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
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

    @property
    def has_interval(self) -> bool:
        """False when there were too few items to resample (low and high are NaN)."""
        return not np.isnan(self.low)

    def scaled(self, factor: float) -> Estimate:
        """The same estimate on another scale (e.g. x100)."""
        return Estimate(self.value * factor, self.low * factor, self.high * factor, self.n)


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(draws, [tail, 100.0 - tail])
    return float(low), float(high)


_CHUNK_CELLS = 1 << 22  # resample indices drawn per chunk: bounds memory for large n
_CELLS_PER_LEVEL = 4  # a multinomial level costs about as much as this many index draws


def means_by_index(values: np.ndarray, b: int, rng: np.random.Generator) -> np.ndarray:
    """B bootstrap means of one group, resampling its values with replacement by index, in
    chunks: B x n draws."""
    n = len(values)
    rows = max(1, _CHUNK_CELLS // n)
    draws = [
        values[rng.integers(0, n, size=(min(rows, b - start), n))].mean(axis=1)
        for start in range(0, b, rows)
    ]
    return np.concatenate(draws)


def means_by_counts(
    levels: np.ndarray, counts: np.ndarray, b: int, rng: np.random.Generator
) -> np.ndarray:
    """B bootstrap means of a group holding `counts[i]` values equal to `levels[i]`, from
    multinomial counts of the levels: the same distribution as resampling the values, in
    B x (levels) draws."""
    n = int(counts.sum())
    return rng.multinomial(n, counts / n, size=b) @ levels / n


def _group_mean_draws(values: np.ndarray, b: int, rng: np.random.Generator) -> np.ndarray:
    """B bootstrap means of one group, by the cheaper of the two equivalent draws: counts
    when the values take few distinct levels (item scores mostly do), else indices (also for
    NaN, which counts would spread to every draw)."""
    levels, counts = np.unique(values, return_counts=True)
    if levels.size * _CELLS_PER_LEVEL <= len(values) and np.isfinite(levels).all():
        return means_by_counts(levels, counts, b, rng)
    return means_by_index(values, b, rng)


_NAN = float("nan")


def exact_mean(values: Iterable[float]) -> float:
    """The mean from the correctly rounded sum (math.fsum), whatever the order: the value the
    FB-Bench authors' tables round. Pairwise or running sums can land one unit below a decimal
    tie (0.61875 as 0.6187499999999999), which rounds the published 61.88 to 61.87."""
    listed = values.tolist() if isinstance(values, np.ndarray) else list(values)
    return math.fsum(listed) / len(listed) if listed else _NAN


def mean_ci(
    values: Sequence[float],
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Estimate:
    """Mean of values with a percentile bootstrap interval over the values (cluster = value);
    no interval for fewer than two values."""
    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return Estimate(exact_mean(arr), _NAN, _NAN, int(arr.size))
    draws = _group_mean_draws(arr, b, np.random.default_rng(seed))
    low, high = _interval(draws, level)
    return Estimate(exact_mean(arr), low, high, int(arr.size))


def macro_mean_ci(
    groups: Sequence[Sequence[float]],
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Estimate:
    """Mean of group means; the bootstrap resamples within each group (stratified).

    Groups of one item are pooled and resampled across each other: a draw takes as many of
    their values, with replacement, as there are such groups. No interval for fewer than two
    items in all.
    """
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    n = sum(a.size for a in arrays)
    if not arrays:
        return Estimate(_NAN, _NAN, _NAN, 0)
    value = exact_mean([exact_mean(a) for a in arrays])
    if n < 2:
        return Estimate(value, _NAN, _NAN, n)
    rng = np.random.default_rng(seed)
    sums = sum(_group_mean_draws(a, b, rng) for a in arrays if a.size > 1)
    singles = np.array([a[0] for a in arrays if a.size == 1])
    if singles.size:
        sums = sums + singles.size * _group_mean_draws(singles, b, rng)
    low, high = _interval(sums / len(arrays), level)
    return Estimate(value, low, high, n)
