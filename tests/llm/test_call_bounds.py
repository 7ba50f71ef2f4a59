"""Bounds on one model call: the size of a response body (`--max-answer-bytes`) and the total
time over every attempt (`--deadline`), against a local server that oversteps them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from checkbench.llm.base import ChatRequest
from checkbench.llm.openai_compat import OpenAIBackend
from checkbench.llm.retry import RetryPolicy
from checkbench.schema import Message
from checkbench.steps.caller import Caller
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion

FAST = RetryPolicy(attempts=4, base_s=0.01, cap_s=0.05)
REQUEST = ChatRequest(messages=(Message(role="user", content="hi"),), max_tokens=5)


async def _call(server: OpenAIServer, store: RunStore, policy: RetryPolicy, **bounds: object):
    backend = OpenAIBackend("stub", base_url=server.base_url, timeout_s=30.0)
    for name, value in bounds.items():
        setattr(backend, name, value)
    try:
        return await Caller(store, policy=policy).call(backend, REQUEST, role="candidate")
    finally:
        await backend.aclose()


async def test_a_body_over_the_bound_fails_its_call_once_with_the_reason(tmp_path: Path) -> None:
    huge = Reply(body=completion("x" * 200_000))
    with OpenAIServer(huge) as server, RunStore(tmp_path) as store:
        outcome = await _call(server, store, FAST, max_answer_bytes=1000)
        usage = store.usage()
    assert outcome.result is None
    assert "response body over" in (outcome.error or "")
    assert "--max-answer-bytes" in (outcome.error or "")
    assert len(server.requests) == 1  # not retried: it would send as much again
    assert [(u.calls, u.errors) for u in usage] == [(0, 1)]


async def test_a_body_within_the_bound_is_answered(tmp_path: Path) -> None:
    with OpenAIServer(Reply(body=completion("y" * 5000))) as server, RunStore(tmp_path) as store:
        outcome = await _call(server, store, FAST, max_answer_bytes=10_000)
    assert outcome.result is not None and outcome.result.content == "y" * 5000


async def test_a_call_past_its_deadline_fails_whatever_attempt_it_is_at(tmp_path: Path) -> None:
    """A server slower than the deadline but within the per-attempt timeout: the call fails
    at the deadline, on its first attempt, and is counted as failed."""
    late = Reply(body=completion("late"), delay_s=2.0)
    with OpenAIServer(late) as server, RunStore(tmp_path) as store:
        outcome = await _call(server, store, replace(FAST, deadline_s=0.2))
        usage = store.usage()
    assert outcome.result is None and "deadline of 0.2 s" in (outcome.error or "")
    assert len(server.requests) == 1
    assert [(u.calls, u.errors) for u in usage] == [(0, 1)]


async def test_the_backend_deadline_replaces_the_policy_one(tmp_path: Path) -> None:
    script = [Reply(status=503, body=b"down")] * 3
    with (
        OpenAIServer(Reply(body=completion("ok")), script=script) as server,
        RunStore(tmp_path) as store,
    ):
        outcome = await _call(server, store, FAST, deadline_s=0.000_001)
    assert outcome.result is None and "deadline" in (outcome.error or "")
