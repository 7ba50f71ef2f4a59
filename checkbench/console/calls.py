"""The calls table a command prints after its stages: the model calls it made (not the run's
earlier ones), per model and role, with their retries, failures, tokens, time, the limit of
calls at once each endpoint settled on and, when the run knows the model's price, their cost."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console

from checkbench.console.tables import Cell, Column, Grid, print_grid

if TYPE_CHECKING:
    from checkbench.llm.models_file import Price
    from checkbench.store import UsageRow

TITLE = "Model calls of this command"
NONE_MADE = "No model calls made by this command."
UNKNOWN = "-"
NOTE = (
    "in/out: tokens; call s: the calls' durations added up, more than the wall time when "
    "calls overlap; limit: calls at once the endpoint's adaptive limit settled on (over the "
    "replicas that answer and the Ray workers; - for none)"
)
COST_NOTE = "cost: USD at the model's price, batched calls at the batch price"


def _count(value: int, style: str) -> Cell:
    """A count, in `style` when not 0."""
    return Cell(str(value), style=style if value else "")


def usd(value: float) -> str:
    """A cost in dollars to the hundredth of a cent, or to two significant figures below that
    (a few calls cost less)."""
    if value == 0 or value >= 0.0001:
        return f"${value:.4f}"
    return f"${value:.{1 - math.floor(math.log10(value))}f}"


def calls_grid(
    usage: Sequence[UsageRow], limits: Mapping[str, int], prices: Mapping[str, Price]
) -> Grid | None:
    """The calls table of `usage` (None: no call was made); a cost column when a model of it
    has a price, "-" for those that have none, named in a note."""
    if not usage:
        return None
    rows = sorted(usage, key=lambda row: (row.model, row.role))
    priced = any(row.model in prices for row in rows)
    headers = ["calls", "retries", "timed out", "failed", "in", "out", "call s", "limit"]
    columns = [Column("model (role)", numeric=False)]
    columns += [Column(header) for header in headers + (["cost"] if priced else [])]
    cells = []
    for row in rows:
        limit = limits.get(row.model)
        line = [
            Cell(f"{row.model} ({row.role})"),
            Cell(str(row.calls)),
            _count(row.retries, "yellow"),
            _count(row.timeouts, "yellow"),
            _count(row.errors, "red"),
            Cell(str(row.prompt_tokens)),
            Cell(str(row.completion_tokens)),
            Cell(f"{row.latency_s:.1f}"),
            Cell(UNKNOWN if limit is None else str(limit)),
        ]
        if priced:
            price = prices.get(row.model)
            line.append(Cell(UNKNOWN if price is None else usd(price.billed(row))))
        cells.append(line)
    notes = [NOTE]
    if priced:
        total = sum(prices[row.model].billed(row) for row in rows if row.model in prices)
        unpriced = sorted({row.model for row in rows} - set(prices))
        notes.append(f"{COST_NOTE}; {usd(total)} in all")
        if unpriced:
            notes.append(
                f"cost -: no price for {', '.join(unpriced)} (price it in the models file "
                "or with --price MODEL=IN,OUT)"
            )
    return Grid(TITLE, columns, cells, notes=notes)


def calls_json(
    usage: Sequence[UsageRow], limits: Mapping[str, int], prices: Mapping[str, Price]
) -> list[dict[str, object]]:
    """The calls table as JSON: one object per model and role (cost null without a price)."""
    rows = sorted(usage, key=lambda row: (row.model, row.role))
    return [
        {
            "model": row.model,
            "role": row.role,
            "calls": row.calls,
            "retries": row.retries,
            "timed_out": row.timeouts,
            "failed": row.errors,
            "prompt_tokens": row.prompt_tokens,
            "completion_tokens": row.completion_tokens,
            "call_s": round(row.latency_s, 3),
            "limit": limits.get(row.model),
            "cost_usd": prices[row.model].billed(row) if row.model in prices else None,
        }
        for row in rows
    ]


def print_calls(
    usage: Sequence[UsageRow],
    limits: Mapping[str, int],
    prices: Mapping[str, Price],
    console: Console,
) -> None:
    """The calls table, laid out for the console's width, or a line saying none was made."""
    grid = calls_grid(usage, limits, prices)
    if grid is None:
        console.print(NONE_MADE, style="dim", highlight=False)
    else:
        print_grid(grid, console)
