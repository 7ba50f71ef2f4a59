"""Shared fixtures: the embedded model, a real local OpenAI-compatible server, and a CLI runner."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from checkbench.llm.llamacpp import default_gguf

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "feedback-mini.jsonl"
SERVED_MODEL = "smollm2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def gguf() -> Path:
    return default_gguf()


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


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """One local Ray instance for the session's Ray tests (each start costs 15-25 s here); its
    address for a second process to join."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def run_cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """Run `checkbench ARGS` in a fresh process, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "checkbench", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        cwd=cwd,
        timeout=600,
    )
