"""Run `checkbench ARGS` inside this process, as the input corpus does for each of its cases.

A bad input must fail at validation, before any model is opened, so running the command
in-process costs milliseconds instead of an interpreter start. `checkbench.cli.main` is called
with the arguments in `sys.argv`; what it prints is captured, and an exception it lets through
(which a user would see as a traceback) is caught and kept as text. The click command typer
builds from the app on every call is built once here and stands in for the app meanwhile.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import typer

from checkbench import cli
from checkbench.cli import commands  # noqa: F401  (registers the commands)

_COMMAND = typer.main.get_command(cli.app)


@dataclass(frozen=True)
class Outcome:
    """What one command did: its exit code, its output, and the traceback it would print."""

    code: int
    stdout: str
    stderr: str
    crash: str = ""

    @property
    def lines(self) -> list[str]:
        """The non-blank lines of stderr."""
        return [line for line in self.stderr.splitlines() if line.strip()]


@contextlib.contextmanager
def _inside(cwd: Path, env: dict[str, str]) -> Iterator[None]:
    """Run in `cwd` with `env` added to the environment; both restored afterwards."""
    before_cwd, before_env = os.getcwd(), dict(os.environ)
    os.chdir(cwd)
    os.environ.update(env)
    try:
        yield
    finally:
        os.chdir(before_cwd)
        os.environ.clear()
        os.environ.update(before_env)


def invoke(args: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> Outcome:
    """`checkbench ARGS` run in `cwd`: exit code, stdout, stderr, and any escaped exception."""
    out, err = io.StringIO(), io.StringIO()
    code, crash = 0, ""
    argv, app = sys.argv, cli.app
    sys.argv, cli.app = ["checkbench", *args], _COMMAND  # type: ignore[assignment]
    try:
        with (
            _inside(cwd, {"COLUMNS": "200", **(env or {})}),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            cli.main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # what a user would see as a traceback
        code, crash = 1, traceback.format_exc()
    finally:
        sys.argv, cli.app = argv, app
    return Outcome(code, out.getvalue(), err.getvalue(), crash)
