"""A fake OpenAI-compatible server on loopback, for tests and benchmarks.

One aiohttp server with the behaviours they need as options: answers from a function of the
request (canned, echo, deterministic, schema instances) or a script of replies taken in order;
faults (any status, malformed bodies, waits, hang-ups); a capacity above which it answers 429
with Retry-After; a drawn latency; a required API key; the Batch API (checkbench.testing.batch).
It runs in a thread of the caller (`with OpenAIServer(...) as server:`), or in a child process
of its own (`with ServerProcess(...) as server:`), so that what it spends is not charged to
the process being measured:

    python -m checkbench.testing [--answers NAME] [--capacity N]
        [--delay-ms MS] [--latency-ms MS]      # prints its base URL first, serves until killed
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import subprocess
import sys
import threading
import urllib.request
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Self

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage

from checkbench.testing.answers import CANNED, Answer, Reply, as_reply, default_answer
from checkbench.testing.batch import BatchAPI, BatchSettings

AnswerFunction = Callable[[dict[str, Any], dict[str, str]], Answer]
"""A request's JSON body and headers in; its reply out."""

MAX_REQUEST_BYTES = 2**30
"""Large enough for any request a test sends (the bad-input corpus asks 20 MB questions)."""
RETRY_AFTER_S = "0.02"
"""What a refusal over capacity asks the client to wait."""


class _NotHttp(logging.Filter):
    """Drops the error aiohttp logs for bytes that are not HTTP/1 (a probe such as the Ray
    address check's): the client is told by the closed connection; the test's output stays
    clean."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, BadHttpMessage)


_SERVER_LOG = logging.getLogger("checkbench.testing.server")
_SERVER_LOG.addFilter(_NotHttp())


class OpenAIServer:
    """Answers POST /v1/chat/completions with the `script`'s replies in order, then `answer`
    (a Reply, or a function of the request) for every later one; serves the Batch API; says
    what it answered and refused at GET /v1/stats. `requests` holds every chat request's body,
    `headers` the headers of every request received."""

    def __init__(
        self,
        answer: Reply | AnswerFunction = default_answer,
        *,
        script: Sequence[Reply] = (),
        capacity: int | None = None,
        delay_s: float = 0.0,
        latency_s: float = 0.0,
        api_key: str | None = None,
        batch: BatchSettings | None = None,
    ) -> None:
        """`capacity`: above that many calls in flight, 429. `delay_s`: a wait before every
        answer; `latency_s`: the mean of a wait drawn (seeded) from an exponential distribution,
        a model endpoint's latency without its cost. `api_key`: any request without that
        bearer key gets 401."""
        self.answer = answer
        self.script: deque[Reply] = deque(script)
        self.capacity, self.delay_s, self.latency_s = capacity, delay_s, latency_s
        self.api_key = api_key
        self.batch = BatchAPI(self._batch_answer, batch or BatchSettings())
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.counts = {"answered": 0, "refused": 0}
        self.in_flight = 0
        self.max_in_flight = 0
        self.port = 0
        self._draws = random.Random(0)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply_to(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """The next scripted reply, else what `answer` says."""
        if self.script:
            return self.script.popleft()
        return (
            self.answer if isinstance(self.answer, Reply) else as_reply(self.answer(body, headers))
        )

    def _batch_answer(self, body: dict[str, Any]) -> Reply:
        return self.reply_to(body, {})

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.headers.append(dict(request.headers))
        if self.api_key and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return web.json_response({"error": {"message": "bad key"}}, status=401)
        return await handler(request)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw) if raw else {}
        self.requests.append(body)
        if self.capacity is not None and self.in_flight >= self.capacity:
            self.counts["refused"] += 1
            headers = {"Retry-After": RETRY_AFTER_S}
            return web.json_response({"error": "over capacity"}, status=429, headers=headers)
        reply = self.reply_to(body, dict(request.headers))
        wait = reply.delay_s + self.delay_s
        if self.latency_s:
            wait += self._draws.expovariate(1 / self.latency_s)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(wait)
        finally:
            self.in_flight -= 1
        if reply.hang_up:
            if request.transport is not None:
                request.transport.abort()
            raise ConnectionResetError("hung up on purpose")
        self.counts["answered"] += 1
        return _response(reply)

    async def _stats(self, _request: web.Request) -> web.Response:
        return web.json_response(self.counts)

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._auth], client_max_size=MAX_REQUEST_BYTES)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/stats", self._stats)
        app.router.add_routes(self.batch.routes())
        return app

    async def _start(self) -> web.AppRunner:
        runner = web.AppRunner(
            self.app(), access_log=None, handle_signals=False, logger=_SERVER_LOG
        )
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0, backlog=1024).start()
        self.port = runner.addresses[0][1]
        return runner

    def __enter__(self) -> Self:
        """Serve from a background thread until the block ends."""
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            self._runner = self._loop.run_until_complete(self._start())
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def serve_forever(self) -> None:
        """Serve in this process: print the base URL as the first line of stdout, then serve
        until interrupted or terminated."""

        async def serve() -> None:
            runner = await self._start()
            print(self.base_url, flush=True)
            try:
                await asyncio.Event().wait()
            finally:
                await runner.cleanup()

        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve())


def _response(reply: Reply) -> web.Response:
    body = reply.body if reply.body is not None else CANNED.body
    if isinstance(body, str):
        return web.Response(status=reply.status, text=body, headers=reply.headers)
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **reply.headers}
    return web.Response(status=reply.status, body=payload, headers=headers)


class ServerProcess:
    """A server in a child process: entering starts it and reads the base URL it prints
    (`base_url`, `pid`), leaving stops it. The command is `python -m checkbench.testing ARGS`
    (see its __main__), or `command` + ARGS: another script that serves an OpenAIServer."""

    def __init__(self, *args: str, command: Sequence[str] | None = None) -> None:
        default = [sys.executable, "-m", "checkbench.testing"]
        self._command = [*(command or default), *args]

    def __enter__(self) -> Self:
        self._proc = subprocess.Popen(self._command, stdout=subprocess.PIPE, text=True)
        line = self._proc.stdout.readline().strip() if self._proc.stdout else ""
        if not line.startswith("http://"):
            self._proc.kill()
            raise RuntimeError(f"{self._command} did not start (its first line: {line!r})")
        self.base_url = line
        return self

    @property
    def pid(self) -> int:
        """The server's process id (while entered), to read its CPU time."""
        return self._proc.pid

    def stats(self) -> dict[str, Any]:
        """How many calls the server answered and refused."""
        with urllib.request.urlopen(f"{self.base_url}/stats", timeout=30) as answer:
            return json.load(answer)

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.wait(10)
