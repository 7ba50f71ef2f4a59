"""What a table command prints, in the format its `--format` (or `--table-format`) chose.

A command hands its tables (`Grid`s), its sentences and its calls table to one `Printout`,
then `finish`es it with its JSON:

- `table`: each grid laid out for the terminal's width, the sentences as they are;
- `markdown`: each grid a Markdown table, the sentences as plain paragraphs;
- `csv`: every cell of every grid (the calls table's too) as one CSV in long form;
- `json`: the command's own JSON, with the calls table under a `calls` key.

Progress lines (what a stage did, where the run is stored) go to stderr in every format but
`table`, so that what stdout holds parses.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from checkbench.console.calls import NONE_MADE, calls_grid, calls_json, print_calls
from checkbench.console.tables import (
    Grid,
    OutputFormat,
    csv_text,
    grids_json,
    markdown,
    print_grid,
)

if TYPE_CHECKING:
    from checkbench.llm.models_file import Price
    from checkbench.store import UsageRow


class Printout:
    """A command's output in one format (see the module's docstring)."""

    def __init__(self, fmt: OutputFormat, console: Console | None = None) -> None:
        self.fmt = fmt
        self.console = console if console is not None else Console()
        self.err = Console(stderr=True)
        self._grids: list[Grid] = []
        self._calls: list[dict[str, Any]] | None = None

    @property
    def table(self) -> bool:
        return self.fmt == "table"

    def grids(self, *grids: Grid | None) -> None:
        """Print (or, for csv and json, keep) each grid."""
        for grid in grids:
            if grid is None:
                continue
            self._grids.append(grid)
            if self.fmt == "table":
                print_grid(grid, self.console)
            elif self.fmt == "markdown":
                sys.stdout.write(markdown([grid]) + "\n")

    def text(self, markup: str | Text) -> None:
        """A sentence of the output (Rich markup, or a Text): printed as it is, or as a
        Markdown paragraph; csv and json leave it out (the JSON holds what it says)."""
        if self.fmt == "table":
            self.console.print(markup, highlight=False)
        elif self.fmt == "markdown":
            text = markup if isinstance(markup, Text) else Text.from_markup(markup)
            sys.stdout.write(text.plain.strip("\n") + "\n\n")

    def info(self, markup: str) -> None:
        """A progress line or hint (Rich markup): on stdout as a table, else on stderr."""
        (self.console if self.fmt == "table" else self.err).print(markup, highlight=False)

    def calls(
        self,
        usage: Sequence[UsageRow],
        limits: Mapping[str, int],
        prices: Mapping[str, Price],
    ) -> None:
        """The calls table of the command: a table, or the JSON's `calls`."""
        if self.fmt == "table":
            print_calls(usage, limits, prices, self.console)
            return
        self._calls = calls_json(usage, limits, prices)
        grid = calls_grid(usage, limits, prices)
        if grid is not None and self.fmt != "json":
            self.grids(grid)
        elif self.fmt == "markdown":
            self.text(NONE_MADE)

    def finish(self, payload: Callable[[], Any] | None = None) -> None:
        """Write what csv and json kept: every grid's cells, or `payload()` (the command's
        JSON; without one, the grids) with the calls under `calls`."""
        if self.fmt == "csv":
            sys.stdout.write(csv_text(self._grids))
        elif self.fmt == "json":
            data = payload() if payload is not None else grids_json(self._grids)
            if self._calls is not None:
                data = (
                    {**data, "calls": self._calls}
                    if isinstance(data, dict)
                    else {"results": data, "calls": self._calls}
                )
            sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
