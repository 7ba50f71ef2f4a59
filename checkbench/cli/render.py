"""Terminal rendering of summaries and tables."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from checkbench.generate import StageSummary
from checkbench.store import RunStore

console = Console()


def print_stage(summary: StageSummary) -> None:
    """One line saying what a stage did."""
    console.print(
        f"[bold]{summary.stage}[/]: {summary.total} total, {summary.already_done} already done, "
        f"{summary.called} model calls, {summary.cached} cache hits, "
        f"[red]{summary.errors} failed[/], {summary.duration_s:.1f}s"
    )


def print_usage(store: RunStore) -> None:
    """Calls, failures and tokens per model and role."""
    table = Table(title="Model calls")
    for column in ("role", "model", "calls", "failed", "prompt tok", "completion tok", "time s"):
        table.add_column(column, justify="right" if column not in ("role", "model") else "left")
    for row in store.usage():
        table.add_row(
            row.role,
            row.model,
            str(row.calls),
            str(row.errors),
            str(row.prompt_tokens),
            str(row.completion_tokens),
            f"{row.latency_s:.1f}",
        )
    console.print(table)
