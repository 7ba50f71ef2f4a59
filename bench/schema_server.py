"""An OpenAI-compatible endpoint that answers at once with JSON valid for the requested schema.

bench/instant_server.py answers every call with the same sentence, which the build's stages
(all structured: a JSON schema in `response_format`) cannot use. This one builds the smallest
useful instance of the request's schema: objects with every property, lists at their minimum
length (at least one), strings that name their path (so list entries are distinct), numbers 1,
and for a choice "yes", "none" or "negative" when offered (so the stages keep what they see),
else the first option. A request without a schema gets a sentence. Like the instant server it
prints its base URL as the first line of stdout and serves until terminated.

    python bench/schema_server.py            # prints e.g. http://127.0.0.1:41234/v1
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

PREFERRED = ("yes", "none", "negative")


def instance(schema: dict[str, Any], path: str = "answer") -> Any:
    """A value that satisfies `schema` (the subset checkbench sends)."""
    if "anyOf" in schema:
        return instance(next(s for s in schema["anyOf"] if s.get("type") != "null"), path)
    if "enum" in schema:
        return next((v for v in PREFERRED if v in schema["enum"]), schema["enum"][0])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: instance(sub, f"{path}.{key}") for key, sub in properties.items()}
    if kind == "array":
        count = max(schema.get("minItems", 1), 1)
        return [instance(schema["items"], f"{path}[{i}]") for i in range(count)]
    if kind == "string":
        text = f"{path} (instant)".ljust(schema.get("minLength", 0), ".")
        return text[: schema.get("maxLength", len(text))]
    if kind in ("number", "integer"):
        return 1
    return True if kind == "boolean" else None


async def chat_completions(request: web.Request) -> web.Response:
    payload = await request.json()
    schema = (payload.get("response_format") or {}).get("json_schema", {}).get("schema")
    content = json.dumps(instance(schema), ensure_ascii=False) if schema else "An answer."
    prompt_chars = sum(len(str(m.get("content", ""))) for m in payload.get("messages", []))
    return web.json_response(
        {
            "id": "schema",
            "object": "chat.completion",
            "model": payload.get("model", "schema"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_chars // 4 + 1,
                "completion_tokens": len(content) // 4,
            },
        }
    )


async def _serve() -> None:
    app = web.Application(client_max_size=2**24)
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


class SchemaServer:
    """The server in a child process: entering yields its base URL, leaving stops it."""

    def __enter__(self) -> str:
        script = str(Path(__file__).resolve())
        self._proc = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)
        line = self._proc.stdout.readline().strip() if self._proc.stdout else ""
        if not line.startswith("http://"):
            self._proc.kill()
            raise RuntimeError(f"the schema server did not start (its first line: {line!r})")
        return line

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.wait(10)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve())
