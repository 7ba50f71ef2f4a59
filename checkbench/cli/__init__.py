"""The `checkbench` command: thin layers over the Python API, one module per area."""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer import _click
from typer.core import TyperGroup, TyperOption

from checkbench.errors import CheckbenchError

_NOT_A_CHOICE = re.compile(r"(?:Value error, )?(?P<value>.+) is not one of (?P<choices>.+?)\.?$")


def _flags_without_types(params: list[Any]) -> list[Any]:
    """Flags take no value: their help shows no `<bool>` placeholder."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""
    return params


class Group(TyperGroup):
    """A command group whose help, and its commands' help, shows flags without a value
    placeholder."""

    def get_params(self, ctx: _click.Context) -> list[Any]:
        return _flags_without_types(super().get_params(ctx))

    def get_command(self, ctx: _click.Context, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _flags_without_types(command.get_params(ctx))
        return command


app = typer.Typer(
    cls=Group,
    name="checkbench",
    help="Checklist-grounded evaluation of LLMs and of their judges.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

err_console = Console(stderr=True)
INTERRUPTED = 130
"""Exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


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


def usage_line(exc: _click.exceptions.UsageError) -> str:
    """A command-line mistake in one line: the option, what is wrong with it, what it takes."""
    line = exc.format_message()
    param = getattr(exc, "param", None)
    if (
        isinstance(exc, _click.exceptions.BadParameter)
        and not isinstance(exc, _click.exceptions.MissingParameter)
        and param is not None
    ):
        flag = next((opt for opt in param.opts if opt.startswith("--")), param.opts[0])
        found = _NOT_A_CHOICE.match(exc.message)
        if found is not None:
            noun = param.name.strip("_").replace("_", " ")
            choices = found["choices"].replace("'", "")
            line = f"{flag}: unknown {noun} {found['value']} (choose {choices})"
        else:
            line = f"{flag}: {exc.message.removeprefix('Value error, ')}"
    if exc.ctx is not None:
        line = line.rstrip(".") + f"; see `{exc.ctx.command_path} --help`"
    return " ".join(line.split())


def _fail(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(2)


def main() -> None:
    """Entry point: user errors and command-line mistakes become one line on stderr and exit
    code 2."""
    from checkbench.cli import commands  # noqa: F401  (registers the commands)

    try:
        code = app(prog_name="checkbench", standalone_mode=False)
    except _click.exceptions.NoArgsIsHelpError:
        sys.exit(2)  # the help is printed already
    except _click.exceptions.UsageError as exc:
        _fail(usage_line(exc))
    except CheckbenchError as exc:
        _fail(str(exc))
    except typer.Abort:
        err_console.print("Aborted!")
        sys.exit(1)
    except KeyboardInterrupt:
        _interrupted()
    if code == INTERRUPTED:  # typer turns Ctrl-C inside a command into this exit code
        _interrupted()
    sys.exit(code if isinstance(code, int) else 0)


def _interrupted() -> None:
    """Ctrl-C: finished calls are in the run store, so the same command picks up from there."""
    err_console.print("interrupted: rerun the same command to resume", highlight=False)
    sys.exit(INTERRUPTED)
