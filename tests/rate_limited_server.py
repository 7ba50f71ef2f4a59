"""An OpenAI-compatible server with a capacity: above N calls in flight it answers 429.

It runs in its own process (`with RateLimitedServer(N) as server: ...`), so that the time it
takes to answer is its own and not the test process's: a client's view of how many calls are
in flight then matches the server's. Candidates get a canned answer and judges meet every
check; `GET /v1/stats` says how many calls it answered and refused.

    python -m tests.rate_limited_server CAPACITY DELAY_S   # prints its base URL, serves
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import httpx
from aiohttp import web

from tests.endpoint_server import verdicts
from tests.stub_server import completion

RETRY_AFTER_S = "0.02"


class _Capacity:
    def __init__(self, capacity: int, delay_s: float) -> None:
        self.capacity, self.delay_s = capacity, delay_s
        self.in_flight = 0
        self.counts = {"answered": 0, "refused": 0}

    async def chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        if self.in_flight >= self.capacity:
            self.counts["refused"] += 1
            headers = {"Retry-After": RETRY_AFTER_S}
            return web.json_response({"error": "over capacity"}, status=429, headers=headers)
        self.in_flight += 1
        try:
            await asyncio.sleep(self.delay_s)
        finally:
            self.in_flight -= 1
        self.counts["answered"] += 1
        content = verdicts(body) if "response_format" in body else "an answer"
        return web.json_response(completion(content))

    async def stats(self, _request: web.Request) -> web.Response:
        return web.json_response(self.counts)


async def _serve(capacity: int, delay_s: float) -> None:
    server = _Capacity(capacity, delay_s)
    app = web.Application()
    app.router.add_post("/v1/chat/completions", server.chat)
    app.router.add_get("/v1/stats", server.stats)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    print(f"http://{host}:{port}/v1", flush=True)
    await asyncio.Event().wait()


class RateLimitedServer:
    """The server in a child process: entering starts it, leaving stops it."""

    def __init__(self, capacity: int, delay_s: float = 0.05) -> None:
        self.capacity, self.delay_s = capacity, delay_s

    def __enter__(self) -> RateLimitedServer:
        args = [sys.executable, "-m", "tests.rate_limited_server", str(self.capacity)]
        self._proc = subprocess.Popen([*args, str(self.delay_s)], stdout=subprocess.PIPE, text=True)
        self.base_url = self._proc.stdout.readline().strip() if self._proc.stdout else ""
        if not self.base_url.startswith("http://"):
            self._proc.kill()
            raise RuntimeError("the rate-limited server did not start")
        return self

    def stats(self) -> dict[str, Any]:
        return json.loads(httpx.get(f"{self.base_url}/stats", timeout=10).text)

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.wait(10)


if __name__ == "__main__":
    asyncio.run(_serve(int(sys.argv[1]), float(sys.argv[2])))
