"""The one notation of a statistic and its 95% interval, for every table, line and page.

A score (a mean of item scores, 0-100) reads `57.50 [52.1, 63.0]`; a rate or a correlation
(F1, accuracy, agreement, kappa, tau_b, rho: 0-1 or -1 to 1) reads `0.842 [0.71, 0.95]`. The
interval has one decimal fewer than the value. `[n too small]` stands where there were too few
items to resample; `-` where the statistic itself is undefined (docs/protocols.md, section 0).
A figure over fewer than FEW_UNITS units is marked FEW_MARK, with FEW_NOTE saying why, by the
terminal and the report alike (the report reads them from its page data, `notation`).
"""

from __future__ import annotations

import math
from typing import TypeGuard

SCORE_DIGITS = 2
RATE_DIGITS = 3
NO_INTERVAL = "n too small"
UNDEFINED = "-"
FEW_UNITS = 10
"""Below this many units (checks, items or models), a figure's interval says little."""
FEW_MARK = "*"
FEW_REASON = (
    f"over fewer than {FEW_UNITS} units (checks, items or models): its interval says little"
)
FEW_NOTE = f"{FEW_MARK} {FEW_REASON}"


def few_units(n: int | None) -> bool:
    """Whether a figure over `n` units is over too few for its interval to say much."""
    return n is not None and n < FEW_UNITS


NOTATION = {"few_units": FEW_UNITS, "few_mark": FEW_MARK, "few_reason": FEW_REASON}
"""What the report's script needs of this notation (page data `notation`)."""


def _defined(value: float | None) -> TypeGuard[float]:
    return value is not None and math.isfinite(value)


def value_text(value: float | None, digits: int = SCORE_DIGITS, *, signed: bool = False) -> str:
    """The value alone: `57.50`, `+3.20` when signed, `-` where undefined."""
    if not _defined(value):
        return UNDEFINED
    return f"{value:{'+' if signed else ''}.{digits}f}"


def interval_text(
    low: float | None, high: float | None, digits: int = SCORE_DIGITS, *, signed: bool = False
) -> str:
    """The interval alone: `[52.1, 63.0]`, or `[n too small]` when there is none."""
    if not (_defined(low) and _defined(high)):
        return f"[{NO_INTERVAL}]"
    shown = max(digits - 1, 0)
    return f"[{value_text(low, shown, signed=signed)}, {value_text(high, shown, signed=signed)}]"


def estimate_text(
    value: float | None,
    low: float | None,
    high: float | None,
    digits: int = SCORE_DIGITS,
    *,
    signed: bool = False,
    why: str | None = None,
) -> str:
    """`57.50 [52.1, 63.0]`; `-` alone where the value is undefined; a degenerate interval
    followed by why (`100.00 [100.0, 100.0] (every item scored the same)`)."""
    because = f" ({why})" if why else ""
    if not _defined(value):
        return UNDEFINED + because
    interval = interval_text(low, high, digits, signed=signed)
    return f"{value_text(value, digits, signed=signed)} {interval}{because}"
