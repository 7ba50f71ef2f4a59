"""Adaptive concurrency (AIMD): how many calls one endpoint is given at once, found by asking.

The limit starts at the configured concurrency. Each round of calls (as many successes as the
limit, made while every slot was in use) that answered without the latency growing past
`LATENCY_TOLERANCE` times its lowest smoothed value raises it by one, up to a ceiling; a sign of
overload (a 429, a 5xx, a timeout) cuts it by `BACKOFF`, once per round: the failures of calls
sent before a cut do not cut it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BACKOFF = 0.8
LATENCY_TOLERANCE = 2.0
SMOOTHING = 0.2
"""Weight of the newest latency in the moving average."""


@dataclass
class AdaptiveLimit:
    """The limit of calls in flight to one endpoint, and how many are in flight."""

    start: int
    ceiling: int
    floor: int = 1
    limit: float = field(init=False)
    in_flight: int = 0
    round: int = 0
    """Counts the cuts; a call remembers the round it was sent in."""
    _successes: int = 0
    _latency: float | None = None
    _lowest: float | None = None

    def __post_init__(self) -> None:
        self.ceiling = max(self.ceiling, self.floor)
        self.limit = float(min(max(self.start, self.floor), self.ceiling))

    @property
    def has_room(self) -> bool:
        return self.in_flight < int(self.limit)

    def begin(self) -> int:
        """One more call in flight; returns the round it is sent in."""
        self.in_flight += 1
        return self.round

    def succeeded(self, latency_s: float) -> None:
        """A call answered in `latency_s`: raise the limit after a full round in time."""
        saturated = self.in_flight >= int(self.limit)
        self.in_flight -= 1
        smoothed = latency_s if self._latency is None else self._latency
        smoothed += SMOOTHING * (latency_s - smoothed)
        self._latency = smoothed
        self._lowest = smoothed if self._lowest is None else min(self._lowest, smoothed)
        if not saturated or smoothed > LATENCY_TOLERANCE * self._lowest:
            return
        self._successes += 1
        if self._successes >= int(self.limit):
            self._successes = 0
            self.limit = min(float(self.ceiling), self.limit + 1)

    def overloaded(self, sent_in: int) -> None:
        """A call sent in round `sent_in` met a sign of overload: cut, once per round."""
        self.in_flight -= 1
        if sent_in == self.round:
            self.round += 1
            self._successes = 0
            self.limit = max(float(self.floor), self.limit * BACKOFF)

    def ended(self) -> None:
        """A call ended in a way that says nothing about load (refused, a 4xx, a bad body)."""
        self.in_flight -= 1
