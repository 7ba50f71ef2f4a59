"""The Ray address probe: a cluster address where nothing, or something other than Ray,
listens is refused in one line before a run starts; a gRPC (HTTP/2) service passes."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from checkbench.distributed.executor import RayExecutor, probe
from checkbench.errors import CheckbenchError
from checkbench.testing import CANNED, OpenAIServer
from tests.conftest import free_port

SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
"""An empty HTTP/2 SETTINGS frame: what a gRPC server sends first."""


@contextmanager
def listener(reply: bytes) -> Iterator[str]:
    """A TCP service on loopback that reads the client's first bytes and sends `reply`."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(64)
            conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        thread.join(5)
        server.close()


def test_an_http2_service_passes_the_probe() -> None:
    with listener(SETTINGS) as address:
        probe(RayExecutor(address=f"ray://{address}"))


def test_an_http_server_is_not_ray() -> None:
    with OpenAIServer(CANNED) as server:
        address = server.base_url.removeprefix("http://").removesuffix("/v1")
        with pytest.raises(CheckbenchError, match="something answers there, but not Ray"):
            probe(RayExecutor(address=address))


def test_a_service_answering_other_bytes_is_not_ray() -> None:
    with (
        listener(b"SSH-2.0-OpenSSH_9.6\r\n") as address,
        pytest.raises(CheckbenchError, match="but not Ray"),
    ):
        probe(RayExecutor(address=address))


def test_a_port_where_nothing_listens_is_named() -> None:
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(CheckbenchError, match=f"cannot start or join Ray at {address}: nothing"):
        probe(RayExecutor(address=address))


def test_the_local_executor_and_addresses_without_a_port_are_not_probed() -> None:
    probe("local")
    probe(RayExecutor(address="auto"))
