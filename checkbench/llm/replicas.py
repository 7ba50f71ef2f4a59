"""The endpoints serving one model (vLLM or SGLang replicas), each with its own adaptive limit.

A call goes to the replica with the fewest calls in flight among those that are up and have
room, and waits (first come, first served) when none has. A replica that failed (refused the
connection, answered 5xx) is set aside for a while, doubling with each failure in a row, and
then tried again; while every replica is set aside they are all used, so that one endpoint
alone behaves as if there were no replicas.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from checkbench.llm.adaptive import AdaptiveLimit

SET_ASIDE_S = 1.0
SET_ASIDE_MAX_S = 60.0


@dataclass
class Replica:
    """One endpoint: its base URL, its limit, and until when it is set aside."""

    url: str
    limit: AdaptiveLimit
    set_aside_until: float = 0.0
    failures: int = 0
    """Failures in a row; a success clears them."""

    def up(self, now: float) -> bool:
        return self.set_aside_until <= now


@dataclass(frozen=True)
class Slot:
    """A call's place at one replica, taken in round `round` of its limit."""

    replica: Replica
    round: int


@dataclass
class Replicas:
    """Hands out slots at the least loaded replica and takes them back with the outcome."""

    urls: Sequence[str]
    start: int
    ceiling: int
    all: list[Replica] = field(init=False)
    _waiters: deque[asyncio.Future[Slot]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.all = [Replica(url, AdaptiveLimit(self.start, self.ceiling)) for url in self.urls]

    @property
    def limit(self) -> int:
        """The calls the replicas take at once now: a replica whose last call failed (set
        aside, maybe dead) takes none until it answers again, unless every one failed."""
        alive = [replica for replica in self.all if not replica.failures] or self.all
        return sum(int(replica.limit.limit) for replica in alive)

    def others_up(self, replica: Replica) -> bool:
        """Whether a replica other than `replica` is up (a failed call can go there at once)."""
        now = time.monotonic()
        return any(other is not replica and other.up(now) for other in self.all)

    def _take(self) -> Slot | None:
        """A slot at the least loaded replica that is up (any, if none is) and has room."""
        if len(self.all) == 1:
            chosen = self.all[0] if self.all[0].limit.has_room else None
        else:
            now = time.monotonic()
            pool = [r for r in self.all if r.up(now)] or self.all
            chosen = min(
                (r for r in pool if r.limit.has_room),
                key=lambda r: r.limit.in_flight,
                default=None,
            )
        return None if chosen is None else Slot(chosen, chosen.limit.begin())

    async def acquire(self) -> Slot:
        """A slot, at once when one is free and nobody waits, else in turn."""
        slot = None if self._waiters else self._take()
        if slot is not None:
            return slot
        waiter: asyncio.Future[Slot] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                waiter.result().replica.limit.ended()
                self._hand_over()
            raise

    def _hand_over(self) -> None:
        """Give free slots to the calls waiting longest."""
        while self._waiters:
            if self._waiters[0].done():
                self._waiters.popleft()
                continue
            slot = self._take()
            if slot is None:
                return
            self._waiters.popleft().set_result(slot)

    def succeeded(self, slot: Slot, latency_s: float) -> None:
        slot.replica.limit.succeeded(latency_s)
        slot.replica.failures = 0
        self._hand_over()

    def overloaded(self, slot: Slot) -> None:
        """A 429, a 5xx or a timeout: the replica's limit is cut."""
        slot.replica.limit.overloaded(slot.round)
        self._hand_over()

    def set_aside(self, slot: Slot) -> None:
        """The replica failed: it gets no calls for a while (unless all others are aside)."""
        replica = slot.replica
        replica.failures += 1
        pause = min(SET_ASIDE_S * 2 ** (replica.failures - 1), SET_ASIDE_MAX_S)
        replica.set_aside_until = time.monotonic() + pause

    def ended(self, slot: Slot) -> None:
        slot.replica.limit.ended()
        self._hand_over()
