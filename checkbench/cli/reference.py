"""The CLI reference (docs/cli.md), written from the Typer app itself: every visible command
and sub-command with its usage line, help text, arguments and options, as click's own
introspection reports them. `python -m checkbench.cli.reference > docs/cli.md` refreshes it."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import typer
from typer import _click as click
from typer.core import TyperGroup

REFRESH = "python -m checkbench.cli.reference > docs/cli.md"
"""The command that rewrites the committed reference."""

_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _markdown_text(text: str) -> str:
    """Help text as Markdown prose: code spans kept, characters Markdown would read as markup
    (`<`, `*`, `_`, `[...](`) escaped outside them; click's no-rewrap markers dropped."""
    lines = [line for line in inspect.cleandoc(text).splitlines() if line.strip() != "\b"]
    pieces = _CODE_SPAN.split("\n".join(lines))
    for index in range(0, len(pieces), 2):  # the pieces outside code spans
        piece = pieces[index].replace("\\", "\\\\").replace("<", "&lt;")
        pieces[index] = re.sub(r"([*_\[\]])", r"\\\1", piece)
    return "".join(pieces).strip()


def _commands(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[click.Command, click.Context]]:
    """The command and, depth first in the order its group lists them, its visible
    sub-commands, each with its own context (so usage lines name the whole path)."""
    yield command, ctx
    if isinstance(command, TyperGroup):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, click.Context(sub, info_name=name, parent=ctx))


def _section(command: click.Command, ctx: click.Context) -> list[str]:
    depth = max(2, ctx.command_path.count(" ") + 1)  # the root and its commands: ##
    lines = [f"{'#' * depth} `{ctx.command_path}`", ""]
    if command.help:
        lines += [_markdown_text(command.help), ""]
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines += ["```text", f"Usage: {usage}", "```", ""]  # unwrapped, whatever the terminal
    records = [
        (param, record)
        for param in command.get_params(ctx)
        if (record := param.get_help_record(ctx)) is not None
    ]
    for title, kind in (("Arguments", "argument"), ("Options", "option")):
        entries = [
            f"- `{names}`" + (f": {_markdown_text(help_text)}" if help_text else "")
            for param, (names, help_text) in records
            if param.param_type_name == kind
        ]
        if entries:
            lines += [f"{title}:", "", *entries, ""]
    return lines


def reference() -> str:
    """docs/cli.md: the whole command tree of `checkbench`, as Markdown."""
    from checkbench.cli import app, commands  # noqa: F401  (registers the commands)

    root = typer.main.get_command(app)
    lines = [
        "# CLI reference",
        "",
        "Every command of `checkbench` with its usage, help and options, generated from the",
        f"command itself: `{REFRESH}` refreshes this page.",
        "The guides show the commands at work.",
        "",
    ]
    for command, ctx in _commands(root, click.Context(root, info_name="checkbench")):
        lines += _section(command, ctx)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(reference(), end="")
