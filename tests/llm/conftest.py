"""The LLM backends' fixture: a real local OpenAI-compatible server (llama.cpp's) serving the
embedded model."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port

SERVED_MODEL = "smollm2"


@pytest.fixture(scope="session")
def llama_server(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` serving the embedded model on a free loopback port."""
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--model_alias",
                SERVED_MODEL,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--logits_all",
                "true",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield base_url
    finally:
        proc.terminate()
        proc.wait(10)
