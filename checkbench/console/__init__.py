"""The command-line kit the root CLI and every protocol's sub-app share: the Typer group class,
the one-line error of a command-line mistake, option types (`options`) and the terminal
printing that no protocol owns (`render`)."""

from __future__ import annotations

import re
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from typer import _click
from typer.core import TyperGroup, TyperOption

_NOT_A_CHOICE = re.compile(r"(?:Value error, )?(?P<value>.+) is not one of (?P<choices>.+?)\.?$")

err_console = Console(stderr=True)


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


def fail(message: str) -> None:
    """A user error: one line on stderr, exit code 2."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(2)
