"""A tiny OpenAI-compatible HTTP server on loopback whose replies a test scripts.

Used for fault injection (429 with Retry-After, 500, slow or malformed replies) and, in
bench/, as an instant server that answers every request at once with a canned completion.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Reply:
    """One scripted reply."""

    status: int = 200
    body: bytes | dict | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    hang_up: bool = False


def completion(
    content: str = "canned answer", prompt_tokens: int = 7, completion_tokens: int = 3
) -> dict:
    """A chat.completion body."""
    return {
        "id": "stub",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


class StubServer:
    """Serves scripted replies in order, then `default` for every later request."""

    def __init__(self, script: list[Reply] | None = None, default: Reply | None = None) -> None:
        self.script: deque[Reply] = deque(script or [])
        self.default = default or Reply(body=completion())
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> StubServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stopped.set)
        self._thread.join(5)

    def _run(self) -> None:
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stopped = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stopped.wait()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length) if length else b""
                self.requests.append(json.loads(body) if body else {})
                reply = self.script.popleft() if self.script else self.default
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    await asyncio.sleep(reply.delay_s)
                finally:
                    self.in_flight -= 1
                if reply.hang_up:
                    break
                writer.write(_encode(reply))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


def _encode(reply: Reply) -> bytes:
    body = reply.body if reply.body is not None else completion()
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {
        "Content-Type": "application/json",
        "Content-Length": str(len(payload)),
        **reply.headers,
    }
    head = f"HTTP/1.1 {reply.status} X\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode() + b"\r\n" + payload


def main() -> None:
    """Serve canned completions until killed: `python -m tests.stub_server PORTFILE`."""
    import sys
    import time
    from pathlib import Path

    with StubServer() as server:
        Path(sys.argv[1]).write_text(str(server.port))
        while True:
            server.requests.clear()
            time.sleep(1)


if __name__ == "__main__":
    main()
