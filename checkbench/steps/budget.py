"""A cost limit on a command's model calls (`--max-cost USD`).

The limit is on what the models a command calls have spent in the run: their calls already
stored (so a rerun counts what earlier runs spent) and this command's. Before each call that
is not answered from the store, the call is counted at its most: its prompt at one token per
three characters and its `max_tokens` out; when that could pass the limit, with the calls in
flight counted the same way, the call is not made and `OverBudget` ends the command (exit code
3). The calls made are in the store, so the same command with a higher limit resumes.

Prices come from the models file (`price = {...}`) or `--price MODEL=INPUT,OUTPUT`; with a
limit, a model without a price is refused before any call.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from checkbench.errors import CheckbenchError, InputError
from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult, backend_price
from checkbench.llm.models_file import Price

if TYPE_CHECKING:
    from checkbench.store import RunStore

OVER_BUDGET = 3
"""Exit code of a command stopped by its cost limit."""
CHARS_PER_TOKEN = 3
"""Characters of prompt counted as one token when a call is counted at its most (fewer than
tokenizers average, so the count stays above the call's)."""


class OverBudget(CheckbenchError):
    """The next call could pass the cost limit: the command stops before it (exit code 3)."""

    exit_code = OVER_BUDGET

    def __init__(self, limit: float, spent: float, next_most: float) -> None:
        self.limit = limit
        self.spent = spent
        self.next_most = next_most
        super().__init__(
            f"stopped at the cost limit: spent ${spent:.4f} of ${limit:.4f}, "
            f"${max(limit - spent, 0.0):.4f} left, and the next call may cost up to "
            f"${next_most:.4f}; rerun with a higher --max-cost to resume"
        )


@dataclass(frozen=True)
class CostLimit:
    """`--max-cost` and the `--price` table that goes with it (model -> price, over the
    models file's)."""

    max_cost: float | None = None
    prices: Mapping[str, Price] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_cost is not None and not (self.max_cost >= 0 and math.isfinite(self.max_cost)):
            raise InputError(f"must be 0 or more, got {self.max_cost}", field="--max-cost")

    def priced(self, backends: Sequence[ChatBackend]) -> dict[str, Price]:
        """backend name -> its price (`--price` over the models file's); with a limit, a
        backend without one is an InputError."""
        prices: dict[str, Price] = {}
        for backend in backends:
            price = self.prices.get(backend.name) or backend_price(backend)
            if price is None:
                if self.max_cost is None:
                    continue
                raise InputError(
                    f"model '{backend.name}' has no price: give it one in the models file "
                    f"(price = {{ input = ..., output = ... }}) or --price {backend.name}=IN,OUT",
                    field="--max-cost",
                )
            prices[backend.name] = price
        return prices


NO_LIMIT = CostLimit()
"""No cost limit."""


@dataclass
class Budget:
    """The running count of one command's spending against its limit."""

    limit: float
    prices: dict[str, Price]
    """backend name -> price, for every backend the command calls."""
    spent: float = 0.0
    """What the command's models have spent in the run, this command's finished calls too."""
    in_flight: float = 0.0
    """The most the calls under way may cost."""
    calls_in_flight: int = 0
    stopped: bool = False
    """A call was refused: every later one is."""
    _conditions: dict[asyncio.AbstractEventLoop, asyncio.Condition] = field(
        default_factory=dict, repr=False
    )

    @property
    def _changed(self) -> asyncio.Condition:
        """Signalled when a call ends, one per event loop (each stage may run its own)."""
        loop = asyncio.get_running_loop()
        return self._conditions.setdefault(loop, asyncio.Condition())

    @classmethod
    def start(
        cls, store: RunStore, backends: Sequence[ChatBackend], limit: CostLimit
    ) -> Budget | None:
        """The budget of a command calling `backends` on `store` (None without a limit); a
        backend without a price is refused. The prices known (`--price` too) are kept in the
        run, for its calls table and report. Call after the backends took their run names."""
        prices = limit.priced(backends)
        store.set_prices({name: price.model_dump() for name, price in prices.items()})
        if limit.max_cost is None:
            return None
        spent = sum(prices[row.model].billed(row) for row in store.usage() if row.model in prices)
        return cls(limit.max_cost, prices, spent)

    @property
    def left(self) -> float:
        return self.limit - self.spent

    def most(self, backend: ChatBackend, request: ChatRequest) -> float:
        """The most a call may cost (see the module's docstring)."""
        chars = sum(len(str(message.content)) for message in request.messages)
        prompt = math.ceil(chars / CHARS_PER_TOKEN) + len(request.messages) * 4
        return self.prices[backend.name].cost(prompt, request.max_tokens)

    async def reserve(self, backend: ChatBackend, request: ChatRequest) -> float:
        """Count a call about to be made at its most, once that fits under the limit with the
        calls under way counted the same way (waiting for them to end if need be); with none
        under way and still no room, OverBudget, and every later call is refused too."""
        most = self.most(backend, request)
        async with self._changed:
            while self.spent + self.in_flight + most > self.limit:
                if self.calls_in_flight == 0 or self.stopped:
                    self.stopped = True
                    self._changed.notify_all()
                    raise OverBudget(self.limit, self.spent, most)
                await self._changed.wait()
            self.in_flight += most
            self.calls_in_flight += 1
        return most

    async def settle(
        self, backend: ChatBackend, reserved: float, result: ChatResult | None
    ) -> None:
        """A call ended: its reservation freed, what it cost counted."""
        async with self._changed:
            self.in_flight -= reserved
            self.calls_in_flight -= 1
            if result is not None:
                price = self.prices[backend.name]
                self.spent += price.cost(result.prompt_tokens, result.completion_tokens)
            self._changed.notify_all()


_CURRENT: ContextVar[Budget | None] = ContextVar("budget", default=None)


def current() -> Budget | None:
    """The budget the calls being made count against, if any."""
    return _CURRENT.get()


@contextlib.contextmanager
def guarded(budget: Budget | None) -> Iterator[None]:
    """Count the calls made inside against `budget` (None: no limit)."""
    token = _CURRENT.set(budget)
    try:
        yield
    finally:
        _CURRENT.reset(token)
