"""A reported statistic: value, bootstrap interval and sample size, None where undefined."""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, Field

from checkbench.stats import Estimate


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


SAME = "every item scored the same"
FEW = "too few items"
CONSTANT = "a constant judge"
"""Why an interval is degenerate (zero width, or none): the `why` of a Stat."""


def degenerate_why(low: float | None, high: float | None, n: int) -> str | None:
    """Why an interval says nothing: none or too few units to resample, or every resample
    gave the same value because every unit did; None for a proper interval."""
    if low is None or high is None:
        return FEW
    if low == high:
        return FEW if n < 2 else SAME
    return None


class Stat(BaseModel):
    """A statistic with its percentile bootstrap interval over `n` units.

    `value` is None when the statistic is undefined (e.g. kappa when both raters use one
    class); `low`/`high` are None when no bootstrap draw is defined.
    """

    value: float | None
    low: float | None
    high: float | None
    n: int
    why: str | None = Field(default=None, exclude_if=lambda why: why is None)
    """Why the interval is degenerate (SAME, FEW, CONSTANT), when it is."""
    resampled: int | None = Field(default=None, exclude_if=lambda k: k is None)
    """The units the bootstrap resampled when they are groups of the `n` units (clusters:
    items, instructions), else None."""

    @property
    def units(self) -> int:
        """The fewest units the interval rests on: the `n` units, or the clusters resampled
        when fewer."""
        return self.n if self.resampled is None else min(self.n, self.resampled)

    @classmethod
    def from_estimate(cls, estimate: Estimate) -> Stat:
        """Convert a checkbench.stats Estimate (NaN where undefined)."""
        value, low, high = (_finite(x) for x in (estimate.value, estimate.low, estimate.high))
        why = degenerate_why(low, high, estimate.n) if value is not None else None
        return cls(value=value, low=low, high=high, n=estimate.n, why=why)

    @classmethod
    def from_draws(cls, value: float, draws: np.ndarray, n: int, level: float) -> Stat:
        """The value with the percentile interval of its defined (finite) bootstrap draws."""
        defined = draws[np.isfinite(draws)]
        if _finite(value) is None or defined.size == 0:
            why = FEW if _finite(value) is not None else None
            return cls(value=_finite(value), low=None, high=None, n=n, why=why)
        tail = (1.0 - level) / 2.0 * 100.0
        low, high = (float(x) for x in np.percentile(defined, [tail, 100.0 - tail]))
        why = degenerate_why(low, high, n)
        return cls(value=float(value), low=low, high=high, n=n, why=why)
