"""An OpenAI-compatible endpoint that answers every chat completion at once, for benchmarks.

A speed run wants a server that costs next to nothing, so that what it times is the client.
This one (aiohttp.web on loopback, on a port the OS picks) answers `POST /v1/chat/completions`
with one short assistant message and rough token counts, echoing the requested model; a request
with a JSON schema (a judge's) gets the smallest JSON value that schema accepts. No other route
exists. It prints its base URL as the first line of stdout and serves until terminated.

    python bench/instant_server.py            # prints e.g. http://127.0.0.1:41234/v1

From a script, `with InstantServer() as base_url: ...` runs it in a child process, so that its
CPU time is not charged to the process being measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
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


def _answer(payload: dict[str, Any]) -> str:
    form = payload.get("response_format") or {}
    schema = (form.get("json_schema") or {}).get("schema") or form.get("schema")
    return json.dumps(instance(schema)) if schema else ANSWER


async def chat_completions(request: web.Request) -> web.Response:
    payload = await request.json()
    prompt_chars = sum(len(str(m.get("content", ""))) for m in payload.get("messages", []))
    return web.json_response(
        {
            "id": "instant",
            "object": "chat.completion",
            "model": payload.get("model", "instant"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": _answer(payload)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": prompt_chars // 4 + 1, "completion_tokens": 4},
        }
    )


async def _serve() -> None:
    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat_completions)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    print(f"http://{host}:{port}/v1", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


class InstantServer:
    """The server in a child process: entering yields its base URL, leaving stops it."""

    def __enter__(self) -> str:
        script = str(Path(__file__).resolve())
        self._proc = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)
        line = self._proc.stdout.readline().strip() if self._proc.stdout else ""
        if not line.startswith("http://"):
            self._proc.kill()
            raise RuntimeError(f"the instant server did not start (its first line: {line!r})")
        return line

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.wait(10)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve())
