"""The cost limit: unpriced models refused before any call, what the run spent before counted,
and calls stopped before one could pass the limit, none lost in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.llm import open_backend
from checkbench.llm.base import ChatRequest
from checkbench.llm.models_file import Price
from checkbench.schema import Message
from checkbench.steps import loop
from checkbench.steps.budget import Budget, CostLimit, OverBudget, guarded
from checkbench.steps.caller import Caller
from checkbench.store import RunStore
from checkbench.testing import CANNED, OpenAIServer

PRICE = Price(input=1000.0, output=2000.0)
"""USD per million tokens: the server's 7 prompt and 3 completion tokens cost $0.013 a call."""
PER_CALL = PRICE.cost(7, 3)


def _request(k: int) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=f"question {k:03d}"),), max_tokens=50)


def _calls(store: RunStore, url: str, budget: Budget | None, n: int) -> None:
    """`n` calls at once to the model `m` at `url`, counted against `budget`."""
    caller = Caller(store)
    backend = open_backend(f"openai:m@{url}")

    async def run() -> None:
        try:
            calls = (caller.call(backend, _request(k), role="candidate") for k in range(n))
            await asyncio.gather(*calls)
        finally:
            await backend.aclose()

    with guarded(budget):
        loop.run(run())


def test_a_model_without_a_price_is_refused(tmp_path: Path) -> None:
    backend = open_backend("openai:m@http://127.0.0.1:9/v1")
    with RunStore(tmp_path / "run") as store:
        assert Budget.start(store, [backend], CostLimit()) is None
        with pytest.raises(
            InputError, match="field '--max-cost': model 'openai:m@.*' has no price"
        ):
            Budget.start(store, [backend], CostLimit(max_cost=1.0))
    with pytest.raises(InputError, match="must be 0 or more"):
        CostLimit(max_cost=-1.0)


def test_calls_stop_before_one_could_pass_the_limit_and_a_higher_limit_resumes(
    tmp_path: Path,
) -> None:
    with OpenAIServer(CANNED) as server, RunStore(tmp_path / "run") as store:
        backend = open_backend(f"openai:m@{server.base_url}")
        prices = {backend.name: PRICE}
        budget = Budget.start(store, [backend], CostLimit(max_cost=0.3, prices=prices))
        assert budget is not None and budget.spent == 0
        most = budget.most(backend, _request(0))
        assert most > PER_CALL  # counted at its most: 50 tokens out
        with pytest.raises(OverBudget) as stopped:
            _calls(store, server.base_url, budget, 40)
        made = len(server.requests)
        assert 0 < made < 40 and budget.calls_in_flight == 0
        assert budget.spent == pytest.approx(made * PER_CALL)
        assert budget.spent + most > 0.3 >= budget.spent  # stopped at the last call that fit
        assert len([row for row in store.usage() if row.calls == made]) == 1  # none lost
        assert f"spent ${budget.spent:.4f} of $0.3000" in str(stopped.value)
        # a rerun counts what the run spent, and with a higher limit finishes
        again = Budget.start(store, [backend], CostLimit(max_cost=5.0, prices=prices))
        assert again is not None and again.spent == pytest.approx(budget.spent)
        _calls(store, server.base_url, again, 40)
        assert len(server.requests) == 40  # the calls made before came from the store
        assert store.prices() == {backend.name: PRICE.model_dump()}
