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

import json
from typing import Any

from aiohttp import web
from instant_server import ANSWER, ServerProcess, reply, run_forever, schema_of

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
    schema = schema_of(payload)
    return reply(payload, json.dumps(instance(schema), ensure_ascii=False) if schema else ANSWER)


def SchemaServer() -> ServerProcess:  # noqa: N802 (used like the class InstantServer)
    """The schema server in a child process: `with SchemaServer() as base_url: ...`."""
    return ServerProcess(__file__)


if __name__ == "__main__":
    app = web.Application(client_max_size=2**24)
    app.router.add_post("/v1/chat/completions", chat_completions)
    run_forever(app)
