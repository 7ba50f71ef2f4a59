"""The `checkbench` command: thin layers over the Python API, one module per area."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from checkbench.errors import CheckbenchError

app = typer.Typer(
    name="checkbench",
    help="Checklist-grounded evaluation of LLMs and of their judges.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

err_console = Console(stderr=True)


@app.callback()
def root() -> None:
    """Checklist-grounded evaluation of LLMs and of their judges."""


def main() -> None:
    """Entry point: user errors become one line on stderr and exit code 2."""
    from checkbench.cli import commands  # noqa: F401  (registers the commands)

    try:
        app()
    except CheckbenchError as exc:
        err_console.print(
            f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True
        )
        sys.exit(2)
