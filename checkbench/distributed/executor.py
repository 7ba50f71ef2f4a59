"""Where a stage's model calls run: in this process (local) or on a Ray cluster (ray)."""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from types import ModuleType

from checkbench.choices import ExecutorName
from checkbench.errors import CheckbenchError


@dataclass(frozen=True)
class RayExecutor:
    """Run the model calls as Ray Data pipelines. `address` is the cluster to join (None:
    $RAY_ADDRESS, else a Ray instance started on this machine); up to `workers` tasks at a
    time each take `batch_size` jobs (or log records); the run store (or a log) is read
    `chunk` jobs (records) per pipeline."""

    address: str | None = None
    workers: int = 2
    worker_cpus: float = 0.5
    batch_size: int = 64
    chunk: int = 50_000


Executor = ExecutorName | RayExecutor
"""What the API's `executor=` takes: "local", "ray" (a default RayExecutor) or a RayExecutor."""


def ray_executor(executor: Executor) -> RayExecutor | None:
    """The Ray settings of `executor`, or None for the local one."""
    if isinstance(executor, RayExecutor):
        return executor
    return RayExecutor() if executor == "ray" else None


def executor_named(name: ExecutorName, address: str | None) -> Executor:
    """The executor the CLI's `--executor` and `--ray-address` name."""
    return RayExecutor(address=address) if name == "ray" else "local"


def ray_module() -> ModuleType:
    """The `ray` module; a missing ray is one line naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise CheckbenchError("the ray executor needs ray: pip install 'checkbench[ray]'") from None
    return ray


def connect(executor: RayExecutor) -> ModuleType:
    """The `ray` module, joined to the executor's cluster (once per process)."""
    ray = ray_module()
    if not ray.is_initialized():
        address = executor.address or os.environ.get("RAY_ADDRESS")
        if problem := (address and _unreachable(address)) or _init(ray, executor):
            where = address or "this machine"
            raise CheckbenchError(f"cannot start or join Ray at {where}: {problem}")
    # the driver's display is checkbench's progress, not Ray Data's (set once ray.data, which
    # configures its logging on import, is loaded)
    ray.data.DataContext.get_current().enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    return ray


def _init(ray: ModuleType, executor: RayExecutor) -> str | None:
    """Start or join Ray; why it failed, in one line, or None."""
    try:
        ray.init(
            address=executor.address,
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=False,
        )
    except Exception as exc:  # Ray raises several kinds; each is one line for the user
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def _unreachable(address: str, timeout_s: float = 10.0) -> str | None:
    """Why nothing answers at a cluster's "host:port" (with or without ray://), or None when
    something does or the address names no port ("auto", "local"). Asked before Ray is:
    Ray retries such an address for minutes, printing its own log lines meanwhile."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s) as conn:
            return None if _speaks_grpc(conn) else _NOT_RAY
    except OSError as exc:
        return f"nothing answers there ({exc.strerror or type(exc).__name__})"


_NOT_RAY = "something answers there, but not Ray (no gRPC reply to a short probe)"
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
"""HTTP/2's connection preface and an empty SETTINGS frame: a gRPC server (Ray's GCS and
client server) answers with a SETTINGS frame of its own."""


def _speaks_grpc(conn: socket.socket, timeout_s: float = 3.0) -> bool:
    """Whether the service on `conn` answers HTTP/2 (gRPC) as Ray does; a plaintext probe, so
    a cluster set up with TLS (RAY_USE_TLS) is not probed."""
    if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
        return True
    conn.settimeout(timeout_s)
    try:
        conn.sendall(_PREFACE)
        header = conn.recv(9)
    except OSError:
        return False
    return len(header) == 9 and header[3] == 0x04  # the first frame: SETTINGS


def probe(executor: Executor) -> None:
    """Refuse in one line, before a run directory is made, a Ray address where nothing or
    something other than Ray answers (Ray itself would retry it for minutes)."""
    if (ray_settings := ray_executor(executor)) is None:
        return
    address = ray_settings.address or os.environ.get("RAY_ADDRESS")
    if address and (problem := _unreachable(address)):
        raise CheckbenchError(f"cannot start or join Ray at {address}: {problem}")
