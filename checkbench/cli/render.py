"""Terminal rendering of summaries and tables."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from checkbench.scoring import FBBenchLeaderboard
from checkbench.stage import StageSummary
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
    table.add_column("role")
    table.add_column("model", overflow="fold")
    for column in ("calls", "failed", "prompt tok", "completion tok", "time s"):
        table.add_column(column, justify="right")
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


def _fmt(score: float | None, ci: tuple[float, float] | None) -> str:
    """A score, with its interval on a second, dimmed line."""
    if score is None:
        return "-"
    return f"{score:.2f}\n[dim]{ci[0]:.1f}-{ci[1]:.1f}[/]" if ci else f"{score:.2f}"


def print_leaderboard(board: FBBenchLeaderboard) -> None:
    """The FB-Bench leaderboard: headline scores with 95% intervals, n and unscored counts."""
    title = f"FB-Bench leaderboard, 95% bootstrap intervals (judge: {board.judge})"
    caption = "EC = error correction, RM = response maintenance; unscored items " + (
        "count as 0" if board.policy == "zero" else "are left out"
    )
    table = Table(title=title, caption=caption)
    table.add_column("#", justify="right")
    table.add_column("model", overflow="fold")
    for column in ("EC", "RM", "overall", "n", "unscored"):
        table.add_column(column, justify="right")
    for rank, row in enumerate(board.rows, start=1):
        table.add_row(
            str(rank),
            row.model,
            _fmt(row.error_correction, row.error_correction_ci),
            _fmt(row.response_maintenance, row.response_maintenance_ci),
            _fmt(row.overall, row.overall_ci),
            str(row.n),
            f"[red]{row.unscored}[/]" if row.unscored else "0",
        )
    console.print(table)


def print_breakdowns(board: FBBenchLeaderboard, facets: tuple[str, ...]) -> None:
    """One table per (scope, facet): rows are facet values, columns are models."""
    models = [row.model for row in board.rows]
    if not models:
        return
    first = board.breakdowns[models[0]]
    for scope, tables in first.items():
        for facet in facets:
            if facet not in tables:
                continue
            table = Table(title=f"{scope}: score by {facet.replace('_', ' ')}")
            table.add_column(facet, no_wrap=True)
            for model in models:
                table.add_column(model, justify="right")
            for value in tables[facet]:
                cells = []
                for model in models:
                    cell = board.breakdowns[model].get(scope, {}).get(facet, {}).get(value)
                    cells.append(f"{_fmt(cell.score, None)} [dim]n={cell.n}[/]" if cell else "-")
                table.add_row(value, *cells)
            console.print(table)
