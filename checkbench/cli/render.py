"""Terminal rendering of summaries and tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from checkbench.fbbench.scoring import EC, RM, FBBenchLeaderboard
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore

console = Console()


def stage_line(summary: StageSummary) -> str:
    """What a stage did, in one short line (cache hits shown when there are any)."""
    parts = [
        f"{summary.total} total",
        f"{summary.already_done} already done",
        f"{summary.called} model calls",
    ]
    if summary.cached:
        parts.append(f"{summary.cached} cached")
    parts.append(f"[red]{summary.errors} failed[/]" if summary.errors else "0 failed")
    return f"[bold]{summary.stage}[/]: {', '.join(parts)}, {summary.duration_s:.1f}s"


def print_stage(summary: StageSummary, shown: int = 10) -> None:
    """One line saying what a stage did, then what it left unscored (the first `shown`)."""
    console.print(stage_line(summary), highlight=False)
    if summary.unscored:
        listed = ", ".join(summary.unscored[:shown])
        more = len(summary.unscored) - shown
        suffix = f" and {more} more" if more > 0 else ""
        console.print(
            f"[yellow]{len(summary.unscored)} left unscored[/] (asked again on a rerun): "
            f"{escape(listed)}{suffix}",
            highlight=False,
        )


def print_stages(run_dir: Path, summaries: list[StageSummary], *, failures: bool = False) -> None:
    """Each stage's line, then (for answering stages) why answers failed, then the calls table."""
    for summary in summaries:
        print_stage(summary)
    with RunStore.existing(run_dir) as store:
        if failures:
            print_failed_responses(store)
        print_usage(store)


def exit_if_all_failed(summaries: list[StageSummary]) -> None:
    """Exit with code 1 when a stage failed on everything it tried: results are recorded, but a
    script should not take the run for a success."""
    failed = [s.stage for s in summaries if s.all_failed]
    if failed:
        err = Console(stderr=True)
        err.print(f"[bold red]error:[/] every attempt failed in: {', '.join(failed)}")
        raise typer.Exit(1)


def print_failed_responses(store: RunStore, shown: int = 3) -> None:
    """Why answers failed: the most frequent error messages with their counts."""
    errors = Counter(r.error for r in store.responses() if r.error is not None)
    for error, count in errors.most_common(shown):
        console.print(f"[red]{count} failed:[/] {escape(error)}", highlight=False)
    if len(errors) > shown:
        console.print(f"[dim]({len(errors) - shown} other error messages)[/]")


def usage_table(store: RunStore) -> Table:
    """Calls, retries, timeouts, failures, tokens and time per model and role: a model's name
    heads its rows, so long names fit an 80-column terminal."""
    table = Table(
        title="Model calls (in/out: tokens; retry: attempts repeated; t/o: timed out)",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("model / role", overflow="fold")
    for column in ("calls", "retry", "t/o", "failed", "in", "out", "time s"):
        table.add_column(column, justify="right")
    model = None
    for row in sorted(store.usage(), key=lambda row: (row.model, row.role)):
        if row.model != model:
            model = row.model
            table.add_row(Text(model, style="bold"))
        table.add_row(
            Text(f"  {row.role}"),
            str(row.calls),
            f"[yellow]{row.retries}[/]" if row.retries else "0",
            f"[yellow]{row.timeouts}[/]" if row.timeouts else "0",
            f"[red]{row.errors}[/]" if row.errors else "0",
            str(row.prompt_tokens),
            str(row.completion_tokens),
            f"{row.latency_s:.1f}",
        )
    return table


def print_usage(store: RunStore) -> None:
    """Calls, failures and tokens per model and role."""
    console.print(usage_table(store))


def score_cell(score: float | None, ci: tuple[float, float] | None) -> str:
    """A score, with its interval on a second, dimmed line."""
    if score is None:
        return "-"
    return f"{score:.2f}\n[dim]{ci[0]:.1f}-{ci[1]:.1f}[/]" if ci else f"{score:.2f}"


def _leaderboard_caption(board: FBBenchLeaderboard) -> str:
    """What the scores count: unscored items, checks without a judgment entry, and whether
    imported files' stored scores agree with the verdicts."""
    parts = [
        "EC = error correction, RM = response maintenance; unscored items "
        + ("count as 0" if board.policy == "zero" else "are left out")
    ]
    unjudged = sum(row.unjudged_checks for row in board.rows)
    if unjudged:
        checks = f"{unjudged} check{'' if unjudged == 1 else 's'} without a judgment entry"
        parts.append(f"{checks} counted as not met (as published)")
    if board.score_mismatches is not None:
        parts.append(f"stored scores differ from the verdicts' on {board.score_mismatches} records")
    return "; ".join(parts)


def print_leaderboard(board: FBBenchLeaderboard) -> None:
    """The FB-Bench leaderboard: headline scores with 95% intervals, n and unscored counts."""
    title = f"FB-Bench leaderboard, 95% bootstrap intervals (judge: {board.judge})"
    table = Table(title=title, caption=_leaderboard_caption(board))
    table.add_column("#", justify="right")
    table.add_column("model", overflow="fold")
    for column in ("EC", "RM", "overall", "n", "unscored"):
        table.add_column(column, justify="right")
    for rank, row in enumerate(board.rows, start=1):
        table.add_row(
            str(rank),
            row.model,
            score_cell(row.error_correction, row.error_correction_ci),
            score_cell(row.response_maintenance, row.response_maintenance_ci),
            score_cell(row.overall, row.overall_ci),
            str(row.n),
            f"[red]{row.unscored}[/]" if row.unscored else "0",
        )
    console.print(table)


def _shown_slices(board: FBBenchLeaderboard, facet: str) -> list[str]:
    """The slices of a facet to print: "all" only where it is not just EC or RM again."""
    present = {name for cells in board.breakdowns.values() for name in cells.get(facet, {})}
    scenarios = [name for name in (EC, RM) if name in present]
    return scenarios + (["all"] if "all" in present and len(scenarios) != 1 else [])


def print_breakdowns(board: FBBenchLeaderboard, facets: tuple[str, ...]) -> None:
    """One table per (facet, slice): rows are facet values, columns are models; each cell is
    the mean of the task means, as FB-Bench reports, with its number of items."""
    models = [row.model for row in board.rows]
    for facet in facets:
        for name in _shown_slices(board, facet):
            columns = [board.breakdowns[model].get(facet, {}).get(name, {}) for model in models]
            values = sorted({value for column in columns for value in column})
            label = "all items" if name == "all" else name
            table = Table(title=f"{label}: score by {facet.replace('_', ' ')} (mean of task means)")
            table.add_column(facet, no_wrap=True)
            for model in models:
                table.add_column(model, justify="right")
            for value in values:
                row = [
                    f"{score_cell(cell.score, None)} [dim]n={cell.n}[/]" if cell else "-"
                    for cell in (column.get(value) for column in columns)
                ]
                table.add_row(value, *row)
            console.print(table)
