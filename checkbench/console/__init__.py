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
from typer.core import TyperArgument, TyperGroup, TyperOption

_NOT_A_CHOICE = re.compile(r"(?:Value error, )?(?P<value>.+) is not one of (?P<choices>.+?)\.?$")

err_console = Console(stderr=True)


_DEFAULT_IN_HELP = re.compile(r"\s*\(default:? ((?:[^()]|\([^()]*\))+)\)")
_PLACEHOLDERS = {"path": "PATH", "str": "TEXT", "int": "INTEGER", "float": "NUMBER"}
"""Value placeholders by the parameter's Python type."""


def _kind(param: Any, ctx: _click.Context) -> str | None:
    """An option's or argument's kind of value in capitals (PATH, TEXT, INTEGER, NUMBER; a
    repeatable one the same), or typer's own display for choices (`<text|logprob>`)."""
    if param.type_descriptor.is_choice:
        return param.display_type(ctx)
    bare = param.bare_type().lower()
    return _PLACEHOLDERS.get(bare.removeprefix("list[").removesuffix("]"), bare.upper())


class _Option(TyperOption):
    def display_type_rich(self, ctx: _click.Context) -> str | None:
        return self.metavar if self.metavar is not None else _kind(self, ctx)

    def _get_default_string(self, *args: Any, **kwargs: Any) -> str:
        if isinstance(self.show_default, str):  # the default the help text gave, as written
            return self.show_default
        return super()._get_default_string(*args, **kwargs)


class _Argument(TyperArgument):
    def display_type_rich(self, ctx: _click.Context) -> str | None:
        return _kind(self, ctx)

    @property
    def display_name_raw(self) -> str:
        return (self.metavar or self.name or "").upper()

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


def _readable(params: list[Any]) -> list[Any]:
    """Help that reads one way: flags take no value (no `<bool>`), placeholders in capitals
    (RUN_DIR, PATH, TEXT: no `{bench}` or `<list[str]>`), and a default given in an option's
    help text moved to the `[default: ...]` typer writes for the others."""
    for param in params:
        if type(param) is TyperOption:
            param.__class__ = _Option
        elif type(param) is TyperArgument:
            param.__class__ = _Argument
        if isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""
        help_text = getattr(param, "help", None)
        found = _DEFAULT_IN_HELP.search(help_text or "")
        if isinstance(param, TyperOption) and found and param.default is None:
            param.help = _DEFAULT_IN_HELP.sub("", help_text, count=1)
            param.show_default = found[1]
    return params


def _one_paragraph(command: Any) -> None:
    """The command's line in its group's list: the first paragraph of its help, unwrapped."""
    if command.help and not command.short_help:
        command.short_help = " ".join(command.help.split("\n\n")[0].split())


class Group(TyperGroup):
    """A command group whose help, and its commands' help, reads one way (`_readable`)."""

    def get_params(self, ctx: _click.Context) -> list[Any]:
        return _readable(super().get_params(ctx))

    def get_command(self, ctx: _click.Context, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _readable(command.get_params(ctx))
            _one_paragraph(command)
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
