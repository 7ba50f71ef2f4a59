"""The one table renderer of every command that prints a table, in four formats.

A command describes its tables as `Grid`s (plain text cells, no markup) and hands them to
`show`. As `table`, a grid is laid out for the terminal's width: as it is when it fits, else
transposed (when its rows and columns are two facets), else with each row's label on a line of
its own above its cells, else in blocks of columns that fit, the labels repeated. A cell is
never broken: a number or a name keeps its line, and a header wraps only between tokens
(at spaces, `-`, `/`, `:` and `_`). `markdown` and `csv` print every cell in full, whatever the
width; `json` prints the command's own JSON.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from checkbench.stats.notation import (
    RATE_DIGITS,
    SCORE_DIGITS,
    UNDEFINED,
    interval_text,
    value_text,
)

if TYPE_CHECKING:
    from checkbench.stats.estimate import Stat

OutputFormat = Literal["table", "markdown", "csv", "json"]
GAP = 2
"""Spaces between two columns."""
HEADER_LINES = 3
"""Lines a column header may take before its column is widened."""
_TOKENS = re.compile(r"[^\s\-/:_]+[\-/:_]*|[\-/:_]+|\s+")


@dataclass(frozen=True)
class Cell:
    """One cell: its value, an optional detail (an interval, a count) shown dimmed, below the
    value or after it, and the value's style (e.g. `red`)."""

    value: str
    detail: str = ""
    style: str = ""


@dataclass(frozen=True)
class Column:
    """A column's header; numbers are right-aligned."""

    header: str
    numeric: bool = True
    name: bool = False
    """The header is a name (a model's): kept on one line, never wrapped."""
    wrap: bool = False
    """The cells are prose (a check's text, a reason): they wrap between words to fit."""


@dataclass(frozen=True)
class Grid:
    """A table: `columns[label]` holds the rows' labels (a model, a facet value)."""

    title: str
    columns: Sequence[Column]
    rows: Sequence[Sequence[Cell]]
    notes: Sequence[str] = ()
    label: int = 0
    detail_below: bool = True
    transposable: bool = False
    """The rows and the columns other than the label are two facets (models x facet values):
    the grid may be printed the other way round."""
    legend: Sequence[tuple[str, str]] = ()
    """(short form, full name) of the names shortened in the headers."""


def cell(value: Any, detail: str = "", style: str = "") -> Cell:
    """A cell of any value, as text."""
    return Cell(str(value), detail, style)


def transposed(grid: Grid) -> Grid:
    """The grid with its rows as columns: the label column's header stays in the corner; a
    long row label becomes a header in a unique short form, given in full in a legend."""
    label = grid.label
    names = [row[label].value for row in grid.rows]
    short = unique_forms(names)
    others = [i for i in range(len(grid.columns)) if i != label]
    columns = [Column(grid.columns[label].header, numeric=False)]
    columns += [Column(header, name=True) for header in short]
    rows = [[Cell(grid.columns[i].header), *(row[i] for row in grid.rows)] for i in others]
    legend = [(s, name) for s, name in zip(short, names, strict=True) if s != name]
    return replace(
        grid,
        columns=columns,
        rows=rows,
        label=0,
        transposable=False,
        legend=legend,
    )


def shortened(grid: Grid) -> Grid:
    """The grid with its names in headers (`Column.name`) in unique short forms, each given
    in full in the legend (the grid itself when no name is long)."""
    named = [i for i, column in enumerate(grid.columns) if column.name and i != grid.label]
    short = unique_forms([grid.columns[i].header for i in named])
    pairs = [(s, grid.columns[i].header) for s, i in zip(short, named, strict=True)]
    if all(s == name for s, name in pairs):
        return grid
    columns = list(grid.columns)
    for s, i in zip(short, named, strict=True):
        columns[i] = replace(columns[i], header=s)
    legend = [*grid.legend, *((s, name) for s, name in pairs if s != name)]
    return replace(grid, columns=columns, legend=legend)


SHORT = 12
"""Cells a shortened name aims at."""


def unique_forms(names: Sequence[str]) -> list[str]:
    """Each name, or where longer than SHORT its first tokens up to SHORT (more where needed to
    tell it from the others) followed by `…`: unique among `names`."""
    split = [tokens(name) for name in names]
    forms = []
    for name, parts in zip(names, split, strict=True):
        k = 1
        while k < len(parts) and (
            cell_len("".join(parts[:k])) < SHORT
            or sum(other[:k] == parts[:k] for other in split) > 1
        ):
            k += 1
        forms.append(name if k >= len(parts) else "".join(parts[:k]).rstrip() + "…")
    return forms


def tokens(text: str) -> list[str]:
    """`text` cut after each separator: the places a header may wrap."""
    return _TOKENS.findall(text)


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken only between tokens (a token longer
    than `width` keeps a line of its own)."""
    lines: list[str] = []
    line = ""
    for token in tokens(text):
        if line and cell_len(line + token.rstrip()) > width:
            lines.append(line.rstrip())
            line = token.lstrip()
        else:
            line += token
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def prose(text: str, width: int) -> list[str]:
    """Prose in lines of at most `width` cells: broken between tokens, and a token wider than
    `width` (a run of CJK text has no space) cut where the width ends."""
    return [part for line in wrap(text, width) for part in chop_cells(line, width) or [""]]


def _header_width(header: str, floor: int) -> int:
    """The narrowest width, at least `floor`, at which `header` takes at most HEADER_LINES."""
    longest = max((cell_len(token.strip()) for token in tokens(header)), default=0)
    width = max(floor, longest)
    while len(wrap(header, width)) > HEADER_LINES and width < cell_len(header):
        width += 1
    return width


def _cell_lines(item: Cell, below: bool, width: int = 0) -> list[Text]:
    """A cell's lines: the value, then each line of its detail (or all on one line); with a
    `width` (prose), the value and the detail wrapped between tokens to it."""
    if width:
        text = " ".join([item.value, *item.detail.split("\n")]) if item.detail else item.value
        return [Text(line, style=item.style) for line in prose(text, width)]
    value = Text(item.value, style=item.style)
    if not item.detail:
        return [value]
    if below:
        return [value, *(Text(line, style="dim") for line in item.detail.split("\n"))]
    return [Text.assemble(value, " ", (" ".join(item.detail.split("\n")), "dim"))]


WRAP_FLOOR = 16
"""Cells a prose column keeps at least when it is narrowed to fit."""


def _widths(grid: Grid, room: int = 0) -> list[int]:
    """The columns' widths; with `room`, prose columns narrowed (to WRAP_FLOOR or their
    longest token at least) until the grid fits it, where they can."""
    widths = _natural(grid)
    floors = {
        i: max(WRAP_FLOOR, cell_len(column.header))
        for i, column in enumerate(grid.columns)
        if column.wrap and i != grid.label
    }
    excess = _total(widths) - room if room else 0
    while excess > 0:
        shrinkable = [i for i in floors if widths[i] > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1
    return widths


def _natural(grid: Grid) -> list[int]:
    widths = []
    for i, column in enumerate(grid.columns):
        cells = max(
            (line.cell_len for row in grid.rows for line in _cell_lines(row[i], grid.detail_below)),
            default=0,
        )
        if i == grid.label or column.name:
            widths.append(max(cells, cell_len(column.header)))
        else:
            widths.append(_header_width(column.header, cells))
    return widths


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + GAP * max(len(widths) - 1, 0)


def _fit(text: Text, width: int, numeric: bool) -> Text:
    pad = " " * max(width - text.cell_len, 0)
    return Text.assemble(pad, text) if numeric else Text.assemble(text, pad)


def _join(parts: Sequence[Text]) -> Text:
    line = Text()
    for k, part in enumerate(parts):
        if k:
            line.append(" " * GAP)
        line.append_text(part)
    line.rstrip()
    return line


def _block(
    grid: Grid, shown: Sequence[int], widths: Sequence[int], heads: bool, room: int = 0
) -> list[Text]:
    """The lines of the columns `shown`; with `heads`, the label stands on its own line above
    each row instead of in a column (wrapped between tokens to `room`)."""
    columns = [i for i in shown if not (heads and i == grid.label)]
    headers = [
        [grid.columns[i].header]
        if i == grid.label or grid.columns[i].name
        else wrap(grid.columns[i].header, widths[i])
        for i in columns
    ]
    depth = max((len(h) for h in headers), default=1)
    lines = []
    for k in range(depth):
        parts = []
        for i, header in zip(columns, headers, strict=True):
            text = header[k - depth + len(header)] if k >= depth - len(header) else ""
            parts.append(_fit(Text(text, style="bold"), widths[i], grid.columns[i].numeric))
        lines.append(_join(parts))
    rule = _total([widths[i] for i in columns])
    lines.append(Text("─" * rule, style="dim"))
    for row in grid.rows:
        if heads:
            lines.extend(Text(part, style="bold") for part in wrap(row[grid.label].value, room))
        cells = [
            _cell_lines(row[i], grid.detail_below, widths[i] if grid.columns[i].wrap else 0)
            for i in columns
        ]
        for k in range(max(len(c) for c in cells)):
            parts = [
                _fit(c[k] if k < len(c) else Text(""), widths[i], grid.columns[i].numeric)
                for i, c in zip(columns, cells, strict=True)
            ]
            lines.append(_join(parts))
    return lines


def _chunks(grid: Grid, widths: Sequence[int], room: int, heads: bool) -> list[list[int]]:
    """The value columns in runs that fit `room` beside the label column (or, with `heads`,
    under the labels)."""
    label = [] if heads else [grid.label]
    chunks: list[list[int]] = []
    for i in range(len(grid.columns)):
        if i == grid.label:
            continue
        if chunks and _total([widths[j] for j in label + chunks[-1] + [i]]) <= room:
            chunks[-1].append(i)
        else:
            chunks.append([i])
    return [sorted(label + chunk) for chunk in chunks]


def layout(grid: Grid, width: int) -> list[Text]:
    """The lines of `grid` laid out to fit `width` cells (see the module's docstring)."""
    candidates = [grid]
    if grid.transposable and grid.rows:
        candidates.append(transposed(grid))
    for candidate in candidates:
        widths = _widths(candidate, width)
        if _total(widths) <= width:
            return _titled(candidate, [_block(candidate, range(len(widths)), widths, False)], width)
    grid = shortened(grid)
    widths = _widths(grid, width)
    everything = list(range(len(widths)))
    if _total([w for i, w in enumerate(widths) if i != grid.label]) <= width:
        return _titled(grid, [_block(grid, everything, widths, True, width)], width)
    beside, under = (_chunks(grid, widths, width, heads) for heads in (False, True))
    too_wide = any(_total([widths[i] for i in chunk]) > width for chunk in beside)
    heads = len(under) < len(beside) or widths[grid.label] > width // 2 or too_wide
    chunks = under if heads else beside
    blocks = [_block(grid, chunk, widths, heads, width) for chunk in chunks]
    return _titled(grid, blocks, width, chunks)


def _legend(entries: Sequence[tuple[str, str]], width: int) -> list[Text]:
    lines: list[Text] = []
    for short, name in entries:
        entry = f"{short} = {name}"
        parts = [entry] if cell_len(entry) <= width else [f"{short} =", *wrap(name, width)]
        lines.extend(Text(part, style="dim") for part in parts)
    return lines


def _titled(
    grid: Grid, blocks: list[list[Text]], width: int, chunks: Sequence[Sequence[int]] = ()
) -> list[Text]:
    """The blocks under their titles, then the notes, then the legend of shortened names; when
    the columns are split into blocks (`chunks`), each block carries its own columns' legend."""
    lines: list[Text] = []
    own = {short: name for short, name in grid.legend}
    for k, block in enumerate(blocks):
        part = f" ({k + 1} of {len(blocks)})" if len(blocks) > 1 else ""
        lines.extend(Text(line, style="bold") for line in wrap(grid.title + part, width))
        lines.extend(block)
        if chunks:
            heads = [grid.columns[i].header for i in chunks[k]]
            lines.extend(_legend([(h, own.pop(h)) for h in heads if h in own], width))
    for note in grid.notes:
        lines.extend(Text(line, style="dim") for line in wrap(note, width))
    return lines + _legend(list(own.items()), width)


class Fitted:
    """A grid as a Rich renderable, laid out for the width it is given."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from layout(self.grid, options.max_width)


def print_grid(grid: Grid, console: Console) -> None:
    """A grid as a table laid out for the console's width."""
    for line in layout(grid, console.width):
        console.print(line, soft_wrap=True, highlight=False)


def _plain(item: Cell) -> str:
    return " ".join([item.value, *item.detail.split("\n")]) if item.detail else item.value


def markdown(grids: Sequence[Grid]) -> str:
    """Every grid as a Markdown table under its title, its notes after it."""

    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    parts = []
    for grid in grids:
        lines = [f"### {grid.title}", "", row([c.header for c in grid.columns])]
        lines.append("|" + "|".join("---:" if c.numeric else "---" for c in grid.columns) + "|")
        lines.extend(row([_plain(c) for c in r]) for r in grid.rows)
        lines.extend(f"\n{note}" for note in grid.notes)
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def csv_text(grids: Sequence[Grid]) -> str:
    """Every cell of every grid as one CSV in long form: table, row (its label), column,
    value, detail."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["table", "row", "column", "value", "detail"])
    for grid in grids:
        for r in grid.rows:
            for i, column in enumerate(grid.columns):
                if i != grid.label:
                    writer.writerow(
                        [
                            grid.title,
                            r[grid.label].value,
                            column.header,
                            r[i].value,
                            " ".join(r[i].detail.split("\n")),
                        ]
                    )
    return out.getvalue()


def grids_json(grids: Sequence[Grid]) -> list[dict[str, Any]]:
    """The grids as JSON: for commands without a JSON of their own."""
    return [
        {
            "title": grid.title,
            "rows": [
                {
                    c.header: {"value": r[i].value, "detail": " ".join(r[i].detail.split("\n"))}
                    if r[i].detail
                    else r[i].value
                    for i, c in enumerate(grid.columns)
                }
                for r in grid.rows
            ],
            "notes": list(grid.notes),
        }
        for grid in grids
    ]


def estimate(
    value: float | None,
    low: float | None,
    high: float | None,
    digits: int = SCORE_DIGITS,
    *,
    signed: bool = False,
    why: str | None = None,
) -> Cell:
    """A statistic in the one notation (stats.notation): the value, its interval the detail,
    followed by why the interval is degenerate when it is."""
    shown = value_text(value, digits, signed=signed)
    because = f"\n({why})" if why else ""
    if shown == UNDEFINED:
        return Cell(shown, because.strip())
    return Cell(shown, interval_text(low, high, digits, signed=signed) + because)


def stat_cell(value: Stat | None, digits: int = RATE_DIGITS) -> Cell:
    """A rate (0-1) or correlation with its interval; `-` where undefined."""
    if value is None:
        return Cell(UNDEFINED)
    return estimate(value.value, value.low, value.high, digits, why=value.why)
