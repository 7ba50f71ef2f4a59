"""A reported statistic: value, bootstrap interval and sample size, None where undefined."""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel

from checkbench.stats import Estimate


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


class Stat(BaseModel):
    """A statistic with its percentile bootstrap interval over `n` units.

    `value` is None when the statistic is undefined (e.g. kappa when both raters use one
    class); `low`/`high` are None when no bootstrap draw is defined.
    """

    value: float | None
    low: float | None
    high: float | None
    n: int

    @classmethod
    def from_estimate(cls, estimate: Estimate) -> Stat:
        """Convert a checkbench.stats Estimate (NaN where undefined)."""
        return cls(
            value=_finite(estimate.value),
            low=_finite(estimate.low),
            high=_finite(estimate.high),
            n=estimate.n,
        )

    @classmethod
    def from_draws(cls, value: float, draws: np.ndarray, n: int, level: float) -> Stat:
        """The value with the percentile interval of its defined (finite) bootstrap draws."""
        defined = draws[np.isfinite(draws)]
        if _finite(value) is None or defined.size == 0:
            return cls(value=_finite(value), low=None, high=None, n=n)
        tail = (1.0 - level) / 2.0 * 100.0
        low, high = np.percentile(defined, [tail, 100.0 - tail])
        return cls(value=float(value), low=float(low), high=float(high), n=n)
