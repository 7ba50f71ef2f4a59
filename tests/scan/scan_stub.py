"""Running a SCAN stage against the scripted stub server, closing the HTTP backend after."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TypeVar

from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend
from checkbench.testing import OpenAIServer, Reply, completion

T = TypeVar("T")


def answer(value: object) -> Reply:
    """A reply whose content is `value` as JSON."""
    return Reply(body=completion(json.dumps(value)))


def run_on_stub(
    server: OpenAIServer, stage: Callable[[ChatBackend], Awaitable[T]], name: str = "stub"
) -> T:
    """Run `stage(backend)` with an `openai:NAME` backend on the stub, one request at a time."""
    backend = open_backend(f"openai:{name}", ModelOptions(base_url=server.base_url, concurrency=1))

    async def run() -> T:
        try:
            return await stage(backend)
        finally:
            await backend.aclose()

    return asyncio.run(run())
