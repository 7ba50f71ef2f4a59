"""The `checkbench` command: the core commands (one module per area) and each protocol's
sub-app, mounted from the registry; thin layers over the Python API."""

from __future__ import annotations

import os
import signal
import sys
from importlib.metadata import version
from typing import Annotated

import typer
from typer import _click

from checkbench import registry
from checkbench.console import Group, err_console, fail, usage_line
from checkbench.errors import CheckbenchError, disk_full, full_disk_error
from checkbench.registry import Alias

INTERRUPTED = 130
"""Exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


COMMAND_ORDER = (
    "run",
    "generate",
    "judge",
    "leaderboard",
    "compare",
    "report",
    "view",
    "calibrate",
    "agreement",
    "audit",
    "export-labels",
)
"""The core commands in --help in the order a user meets them; the protocols' sub-apps follow
in the order they are registered."""


class Root(Group):
    """The root group: an old command name (a registered protocol's `Alias`, not listed in
    --help) is replaced by the new one before parsing, with a note on stderr."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, renamed(args, registry.aliases()))

    def list_commands(self, ctx: _click.Context) -> list[str]:
        names = super().list_commands(ctx)
        first = [name for name in COMMAND_ORDER if name in names]
        return first + [name for name in names if name not in first]


def renamed(args: list[str], aliases: list[Alias]) -> list[str]:
    """`args` with the longest old command name they start with (after the root's options)
    replaced by its new name, and its renamed options by theirs."""
    start = next((i for i, arg in enumerate(args) if not arg.startswith("-")), len(args))
    words = args[start:]
    matching = [a for a in aliases if words[: len(a.old.split())] == a.old.split()]
    if not matching:
        return args
    alias = max(matching, key=lambda a: len(a.old.split()))
    err_console.print(alias.note(), markup=False, highlight=False, soft_wrap=True)
    rest = [alias.options.get(arg, arg) for arg in words[len(alias.old.split()) :]]
    return [*args[:start], *alias.new.split(), *rest]


app = typer.Typer(
    cls=Root,
    name="checkbench",
    help="Checklist-grounded evaluation of LLMs and of their judges.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        print(f"checkbench {version('checkbench')}")
        raise typer.Exit()


@app.callback()
def root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Checklist-grounded evaluation of LLMs and of their judges."""


def main() -> None:
    """Entry point: user errors and command-line mistakes become one line on stderr and exit
    code 2."""
    from checkbench.cli import commands  # noqa: F401  (registers the commands)
    from checkbench.steps.budget import OverBudget

    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = app(prog_name="checkbench", standalone_mode=False)
    except _click.exceptions.NoArgsIsHelpError:
        sys.exit(2)  # the help is printed already
    except _click.exceptions.UsageError as exc:
        fail(usage_line(exc))
    except OverBudget as exc:  # before CheckbenchError: its own exit code
        err_console.print(str(exc), markup=False, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except CheckbenchError as exc:
        fail(str(exc))
    except typer.Abort:
        err_console.print("Aborted!")
        sys.exit(1)
    except KeyboardInterrupt:
        _interrupted()
    except Exception as exc:
        if not disk_full(exc):  # a full disk met anywhere is one line; anything else a bug
            raise
        fail(str(full_disk_error(exc)))
    if code == INTERRUPTED:  # typer turns Ctrl-C inside a command into this exit code
        _interrupted()
    sys.exit(code if isinstance(code, int) else 0)


_stopped_by: list[int] = []
"""The signal that stopped the command, when SIGTERM did (Ctrl-C otherwise)."""


def _terminate(signum: int, _frame: object) -> None:
    """SIGTERM stops a command the way Ctrl-C does: what it finished is kept."""
    _stopped_by.append(signum)
    raise KeyboardInterrupt


def _interrupted() -> None:
    """Ctrl-C or SIGTERM: finished calls are in the run store, so the same command picks up
    from there. The exit does not wait for calls still in flight in worker threads: their
    answers would be thrown away (exit code 128 + the signal's number, as shells report it)."""
    signum = _stopped_by[0] if _stopped_by else signal.SIGINT
    word = "terminated" if signum == signal.SIGTERM else "interrupted"
    err_console.print(f"{word}: rerun the same command to resume", highlight=False)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(128 + signum)
