"""A small aiohttp OpenAI-compatible server on loopback whose answers a test function decides.

It sees each request's JSON body and headers, so tests can tell which endpoint a call reached,
answer candidates and judges differently, refuse json_schema, fail once, or echo the
Authorization header back (the secrets tests).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import web

from tests.stub_server import completion

Answer = tuple[int, Any] | tuple[int, Any, float]
"""(HTTP status, JSON body or text[, seconds to wait before answering])."""


def verdicts(body: dict[str, Any], verdict: str = "yes") -> str:
    """A checklist-judge answer meeting (or not) every check the request's schema names."""
    schema = body["response_format"].get("json_schema", {}).get("schema") or body[
        "response_format"
    ].get("schema", {})
    return json.dumps({c: {"reason": "r", "verdict": verdict} for c in schema["properties"]})


def default_answer(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """Candidates get a canned answer; judges meet every check."""
    if "response_format" in body:
        return 200, completion(verdicts(body))
    return 200, completion("an answer")


def _digest(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest(), 16)


def deterministic(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """Answers that depend on the request only: a candidate's on its model and prompt; a
    judge's verdicts on the response judged, some yes and some no, and for some responses an
    unusable reply (a re-ask, then unscored)."""
    prompt = json.dumps(body["messages"])
    if "response_format" not in body:
        return 200, completion(f"{body['model']} answers #{_digest(prompt) % 9973}")
    schema = body["response_format"].get("json_schema", {}).get("schema") or {}
    asked = list(itertools.takewhile(lambda m: m["role"] != "assistant", body["messages"]))
    if _digest(json.dumps(asked)) % 5 == 0:  # re-asks too (they append): left unscored
        return 200, completion("not json")
    verdicts = {
        check: {"reason": f"r{_digest(prompt, check) % 7}", "verdict": "yes"}
        if _digest(prompt, check) % 2
        else {"reason": "missing", "verdict": "no"}
        for check in schema["properties"]
    }
    return 200, completion(json.dumps(verdicts))


class ServedInThread:
    """Serves `app()` on loopback from a background thread while entered (`port` is set then)."""

    port: int

    def app(self) -> web.Application:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Self:
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def start() -> None:
            self._runner = web.AppRunner(self.app())
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            ready.set()

        def run() -> None:
            self._loop.run_until_complete(start())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


@dataclass
class EndpointServer(ServedInThread):
    """Runs in a thread; `requests` holds (body, headers) of every request received."""

    answer: Callable[[dict[str, Any], dict[str, str]], Answer] = default_answer
    requests: list[tuple[dict[str, Any], dict[str, str]]] = field(default_factory=list)
    port: int = 0

    def bodies(self) -> list[dict[str, Any]]:
        return [body for body, _ in self.requests]

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        headers = dict(request.headers)
        self.requests.append((body, headers))
        status, payload, *delay = self.answer(body, headers)
        if delay:
            await asyncio.sleep(delay[0])
        if isinstance(payload, str):
            return web.Response(status=status, text=payload)
        return web.json_response(payload, status=status)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        return app
