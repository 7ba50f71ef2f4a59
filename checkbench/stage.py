"""What a stage of a run did, measured from the caller's live counters."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from checkbench.calls import CallCounters


@dataclass(frozen=True)
class StageSummary:
    """Work found done already, calls made, cache hits, failures and time of one stage."""

    stage: str
    total: int
    already_done: int
    called: int
    cached: int
    errors: int
    duration_s: float


@dataclass
class StageClock:
    """Started when a stage starts; turns the counters' growth into a StageSummary."""

    counters: CallCounters
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        self._calls, self._cached = self.counters.calls, self.counters.cached

    def summary(self, stage: str, *, total: int, already_done: int, errors: int) -> StageSummary:
        return StageSummary(
            stage=stage,
            total=total,
            already_done=already_done,
            called=self.counters.calls - self._calls,
            cached=self.counters.cached - self._cached,
            errors=errors,
            duration_s=time.perf_counter() - self.started,
        )
