"""Shared fixtures: the embedded model, a local Ray instance, a CLI runner and a counter of
run store opens; and the `e2e` mark on every test that starts a `checkbench` process."""

from __future__ import annotations

import inspect
import os
import socket
import subprocess
import sys
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkbench.llm.llamacpp import default_gguf

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "feedback-mini.jsonl"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def gguf() -> Path:
    return default_gguf()


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


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Counter[Path]:
    """How many times this test opened a `RunStore`, by run directory (resolved): a command
    run in-process (typer's CliRunner) opens its run once."""
    from checkbench.store import RunStore

    opens: Counter[Path] = Counter()
    init = RunStore.__init__

    def counted(store: RunStore, run_dir: str | Path, **options: bool) -> None:
        opens[Path(run_dir).resolve()] += 1
        init(store, run_dir, **options)

    monkeypatch.setattr(RunStore, "__init__", counted)
    return opens


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


PROCESS_COMMANDS = {"checkbench", "tests.docs.tour_process"}
"""What a command line started with `subprocess` names when it runs checkbench (`-m checkbench`)
or the README tour."""


def _reached(code: types.CodeType, scope: dict, seen: dict[types.CodeType, None]) -> None:
    """`code`, its nested functions and the test helpers it calls (followed through their
    globals), into `seen`."""
    if code in seen:
        return
    seen[code] = None
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _reached(const, scope, seen)
    for name in code.co_names:
        helper = inspect.unwrap(scope[name]) if callable(scope.get(name)) else None
        if isinstance(helper, types.FunctionType) and helper.__module__.startswith("tests"):
            _reached(helper.__code__, helper.__globals__, seen)


def _constants(code: types.CodeType) -> set[object]:
    flat: set[object] = set()
    for const in code.co_consts:
        flat.update(const if isinstance(const, tuple) else (const,))
    return flat


def _starts_checkbench(functions: list[types.FunctionType]) -> bool:
    """Whether the functions, or what they call, run `run_cli` or start a process on a
    command line that names checkbench or the README tour."""
    seen: dict[types.CodeType, None] = {}
    for function in functions:
        _reached(function.__code__, function.__globals__, seen)
    names = {name for code in seen for name in code.co_names}
    constants = {const for code in seen for const in _constants(code)}
    return "run_cli" in names or ("subprocess" in names and bool(constants & PROCESS_COMMANDS))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `e2e` the tests that start `checkbench` processes (themselves, through a helper or
    through a fixture), so that `pytest -m "not e2e"` is a quick run without them."""
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        defs = [d for ds in (fixtures.name2fixturedefs.values() if fixtures else ()) for d in ds]
        candidates = [getattr(item, "function", None), *(d.func for d in defs)]
        functions = [f for f in candidates if isinstance(f, types.FunctionType)]
        if _starts_checkbench(functions):
            item.add_marker(pytest.mark.e2e)
