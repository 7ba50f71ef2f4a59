"""An OpenAI-compatible endpoint that answers every chat completion at once, for benchmarks.

A speed run wants a server that costs next to nothing, so that what it times is the client.
This one (aiohttp.web on loopback, on a port the OS picks) answers `POST /v1/chat/completions`
with one short assistant message and rough token counts, echoing the requested model; a request
with a JSON schema (a judge's) gets the smallest JSON value that schema accepts. No other route
exists. It prints its base URL as the first line of stdout and serves until terminated. With
`--latency-ms MS` it waits before each reply, a time drawn (seeded) from an exponential
distribution of that mean: a model endpoint's latency, without its cost.

    python bench/instant_server.py [--latency-ms MS]   # prints e.g. http://127.0.0.1:41234/v1

From a script, `with InstantServer() as base_url: ...` runs it in a child process, so that its
CPU time is not charged to the process being measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiohttp import web

ANSWER = "An instant answer."


def instance(schema: dict[str, Any]) -> Any:
    """The smallest value `schema` (as checkbench sends it: inlined, every property required)
    accepts: the first choice, empty strings, minimal lists."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return instance(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "object":
        return {name: instance(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [instance(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return True
    return "x" * schema.get("minLength", 0)


def schema_of(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks its answer to follow (json_schema or json_object form)."""
    form = payload.get("response_format") or {}
    return (form.get("json_schema") or {}).get("schema") or form.get("schema")


def _answer(payload: dict[str, Any]) -> str:
    schema = schema_of(payload)
    return json.dumps(instance(schema)) if schema else ANSWER


def reply(payload: dict[str, Any], content: str) -> web.Response:
    """A chat completion carrying `content`, echoing the model, with rough token counts."""
    prompt = sum(len(str(m.get("content", ""))) for m in payload.get("messages", [])) // 4 + 1
    completion = len(content) // 4 + 1
    return web.json_response(
        {
            "id": "instant",
            "object": "chat.completion",
            "model": payload.get("model", "instant"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
    )


async def chat_completions(request: web.Request) -> web.Response:
    payload = await request.json()
    if LATENCY_S:
        await asyncio.sleep(_DRAWS.expovariate(1 / LATENCY_S))
    return reply(payload, _answer(payload))


LATENCY_S = 0.0
"""The mean wait before each reply (`--latency-ms`)."""
_DRAWS = random.Random(0)


async def serve(app: web.Application) -> None:
    """Serve `app` on loopback on a port the OS picks; print the base URL first; run forever."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, backlog=1024).start()
    host, port = runner.addresses[0][:2]
    print(f"http://{host}:{port}/v1", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def run_forever(app: web.Application) -> None:
    """A server script's main: serve `app` until interrupted."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(app))


class ServerProcess:
    """A server script in a child process (its CPU is not charged to the process measured):
    entering yields the base URL it printed, leaving stops it."""

    def __init__(self, script: str | Path = __file__, *args: str) -> None:
        self._command = [sys.executable, str(Path(script).resolve()), *args]

    def __enter__(self) -> str:
        self._proc = subprocess.Popen(self._command, stdout=subprocess.PIPE, text=True)
        line = self._proc.stdout.readline().strip() if self._proc.stdout else ""
        if not line.startswith("http://"):
            self._proc.kill()
            raise RuntimeError(f"{self._command[1]} did not start (its first line: {line!r})")
        return line

    @property
    def pid(self) -> int:
        """The server's process id (while entered), to read its CPU time."""
        return self._proc.pid

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.wait(10)


InstantServer = ServerProcess
"""The instant server in a child process: `with InstantServer() as base_url: ...`."""


if __name__ == "__main__":
    if "--latency-ms" in sys.argv:
        LATENCY_S = float(sys.argv[sys.argv.index("--latency-ms") + 1]) / 1000
    instant = web.Application()
    instant.router.add_post("/v1/chat/completions", chat_completions)
    run_forever(instant)
