"""The HTTP backend under faults, against a deliberately faulty local server."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from checkbench.llm.base import ChatRequest
from checkbench.llm.openai_compat import OpenAIBackend
from checkbench.llm.retry import RetryPolicy
from checkbench.schema import Message
from checkbench.steps.caller import Caller
from checkbench.store import RunStore
from checkbench.testing import CANNED, OpenAIServer, Reply, completion
from tests.conftest import free_port

FAST = RetryPolicy(attempts=4, base_s=0.01, cap_s=0.05)
REQUEST = ChatRequest(messages=(Message(role="user", content="hi"),), max_tokens=5)


def _backend(server: OpenAIServer, **kwargs: object) -> OpenAIBackend:
    return OpenAIBackend("stub", base_url=server.base_url, **kwargs)  # type: ignore[arg-type]


async def _call(server: OpenAIServer, store: RunStore, **kwargs: object):
    backend = _backend(server, **kwargs)
    try:
        return await Caller(store, policy=FAST).call(backend, REQUEST, role="candidate")
    finally:
        await backend.aclose()


async def test_429_waits_for_retry_after_then_succeeds(tmp_path: Path) -> None:
    script = [Reply(status=429, body={"error": "slow down"}, headers={"Retry-After": "0.3"})]
    with (
        OpenAIServer(Reply(body=completion("fine")), script=script) as server,
        RunStore(tmp_path) as store,
    ):
        start = time.perf_counter()
        outcome = await _call(server, store)
        assert time.perf_counter() - start >= 0.3
    assert outcome.result is not None and outcome.result.content == "fine"
    assert len(server.requests) == 2


async def test_5xx_and_malformed_bodies_are_retried(tmp_path: Path) -> None:
    script = [Reply(status=500, body=b"boom"), Reply(body=b"not json"), Reply(body={"choices": []})]
    with (
        OpenAIServer(Reply(body=completion("ok", 11, 2)), script=script) as server,
        RunStore(tmp_path) as store,
    ):
        outcome = await _call(server, store)
        usage = store.usage()
    assert outcome.result is not None and outcome.result.content == "ok"
    assert len(server.requests) == 4
    assert [(u.calls, u.errors, u.prompt_tokens, u.completion_tokens) for u in usage] == [
        (1, 0, 11, 2)
    ]


async def test_4xx_is_not_retried_and_is_recorded_as_failed(tmp_path: Path) -> None:
    with (
        OpenAIServer(CANNED, script=[Reply(status=401, body={"error": "bad key"})]) as server,
        RunStore(tmp_path) as store,
    ):
        outcome = await _call(server, store)
        usage = store.usage()
    assert outcome.result is None and "HTTP 401" in (outcome.error or "")
    assert len(server.requests) == 1
    assert [(u.calls, u.errors) for u in usage] == [(0, 1)]


async def test_timeouts_and_dropped_connections_are_retried(tmp_path: Path) -> None:
    script = [Reply(delay_s=2.0), Reply(hang_up=True)]
    with (
        OpenAIServer(Reply(body=completion("late")), script=script) as server,
        RunStore(tmp_path) as store,
    ):
        outcome = await _call(server, store, timeout_s=0.5)
    assert outcome.result is not None and outcome.result.content == "late"
    assert len(server.requests) == 3


async def test_gives_up_after_the_retry_budget(tmp_path: Path) -> None:
    with OpenAIServer(Reply(status=503, body=b"down")) as server, RunStore(tmp_path) as store:
        outcome = await _call(server, store)
    assert outcome.result is None and "HTTP 503" in (outcome.error or "")
    assert len(server.requests) == FAST.attempts


async def test_json_schema_falls_back_to_json_object_once(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    request = REQUEST.model_copy(update={"json_schema": schema})
    with OpenAIServer(
        CANNED, script=[Reply(status=400, body=b"response_format json_schema is not supported")]
    ) as server:
        backend = _backend(server)
        await backend.chat(request)
        await backend.chat(request)
        await backend.aclose()
    formats = [r["response_format"]["type"] for r in server.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert server.requests[1]["response_format"]["schema"] == schema


async def test_api_key_comes_from_the_named_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SECRET_KEY", "sk-test-123")
    with OpenAIServer(CANNED) as server, RunStore(tmp_path) as store:
        backend = _backend(server, api_key_env="MY_SECRET_KEY")
        await Caller(store).call(backend, REQUEST, role="judge")
        await backend.aclose()
        store.close()
    assert b"sk-test-123" not in (tmp_path / "run.sqlite").read_bytes()


def test_retry_after_as_http_date() -> None:
    from email.utils import formatdate

    from checkbench.llm.openai_compat import parse_retry_after

    assert 8 <= parse_retry_after(formatdate(time.time() + 10, usegmt=True)) <= 10  # type: ignore[operator]
    assert parse_retry_after("garbage") is None
    assert parse_retry_after("2.5") == 2.5


async def test_an_unreachable_server_is_named_in_the_error(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    backend = OpenAIBackend("stub", base_url=f"http://127.0.0.1:{port}/v1")
    with RunStore(tmp_path) as store:
        try:
            outcome = await Caller(store, policy=FAST).call(backend, REQUEST, role="candidate")
        finally:
            await backend.aclose()
    assert outcome.result is None
    assert (outcome.error or "").startswith(
        f"connection error: Cannot connect to host 127.0.0.1:{port}"
    )
