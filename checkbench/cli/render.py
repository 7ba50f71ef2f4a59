"""Terminal rendering of summaries and tables."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from checkbench.stats.notation import (
    SCORE_DIGITS,
    UNDEFINED,
    estimate_text,
    interval_text,
    value_text,
)

if TYPE_CHECKING:
    from checkbench.convbench.stages import StageCount
    from checkbench.evaluation.runs import RunTally
    from checkbench.fbbench.scoring import FBBenchLeaderboard
    from checkbench.steps.stage import StageSummary
    from checkbench.store import RunStore, UsageRow

console = Console()


def stage_line(summary: StageSummary) -> str:
    """What a stage did, in one short line (cache hits shown when there are any): calls that
    failed, and (when any) work whose answer was unusable, i.e. came back but unreadable."""
    parts = [
        f"{summary.total} total",
        f"{summary.already_done} already done",
        f"{summary.called} model calls",
    ]
    if summary.cached:
        parts.append(f"{summary.cached} cached")
    failed = summary.failed_calls
    parts.append(f"[red]{failed} failed[/]" if failed else "0 failed")
    unusable = summary.errors - failed
    if unusable > 0:
        parts.append(f"[yellow]{unusable} unusable[/]")
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
    """`print_tally` of the stages and of the run's store."""
    from checkbench.evaluation.runs import RunTally
    from checkbench.store import RunStore

    with RunStore.existing(run_dir) as store:
        tally = RunTally.read(store)
    print_tally(summaries, tally, failures=failures)


def print_tally(
    summaries: Sequence[StageSummary], tally: RunTally, *, failures: bool = False
) -> None:
    """Each stage's line, then (for answering stages) why answers failed, then the calls table."""
    for summary in summaries:
        print_stage(summary)
    if failures:
        print_failed_responses(tally.failed_answers)
    console.print(usage_table(tally.usage, tally.limits))


def report_hint(run_dir: Path) -> str:
    """The command that writes the run's report, and the file it writes (markup)."""
    command = f"checkbench report {shlex.quote(str(run_dir))}"
    return f"report: [bold]{escape(command)}[/] writes {escape(str(run_dir / 'report.html'))}"


def exit_if_all_failed(summaries: Sequence[StageSummary | StageCount]) -> None:
    """Exit with code 1 when a stage failed on everything it tried (a run's stages, or a
    build's): results are recorded, but a script should not take the run for a success."""
    failed = [s.stage for s in summaries if s.all_failed]
    if failed:
        err = Console(stderr=True)
        err.print(f"[bold red]error:[/] every attempt failed in: {', '.join(failed)}")
        raise typer.Exit(1)


def print_failed_responses(failed: Mapping[str, int], shown: int = 3) -> None:
    """Why answers failed: the most frequent error messages with their counts."""
    errors = Counter(failed)
    for error, count in errors.most_common(shown):
        console.print(f"[red]{count} failed:[/] {escape(error)}", highlight=False)
    if len(errors) > shown:
        console.print(f"[dim]({len(errors) - shown} other error messages)[/]")


def usage_table(usage: Sequence[UsageRow], limits: Mapping[str, int]) -> Table:
    """Calls, retries, timeouts, failures, tokens and time per model and role: a model's name
    heads its rows, so long names fit an 80-column terminal."""
    table = Table(
        title="Model calls (in/out: tokens; retry: attempts repeated; t/o: timed out; limit: "
        "calls at once the endpoint's adaptive limit settled on)",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("model / role", overflow="fold")
    for column in ("calls", "retry", "t/o", "failed", "in", "out", "time s"):
        table.add_column(column, justify="right")
    model = None
    for row in sorted(usage, key=lambda row: (row.model, row.role)):
        if row.model != model:
            model = row.model
            limit = f"  limit {limits[model]}" if model in limits else ""
            table.add_row(Text.assemble((model, "bold"), (limit, "dim")))
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
    from checkbench.steps.caller import LIMITS_META

    console.print(usage_table(store.usage(), store.get_meta(LIMITS_META, {})))


def estimate_cell(
    value: float | None,
    low: float | None,
    high: float | None,
    digits: int = SCORE_DIGITS,
    *,
    signed: bool = False,
) -> str:
    """A statistic in the one notation (stats.notation) for a table cell: the value, and its
    interval dimmed on a second line."""
    shown = value_text(value, digits, signed=signed)
    if shown == UNDEFINED:
        return shown
    return f"{shown}\n[dim]{escape(interval_text(low, high, digits, signed=signed))}[/]"


def estimate_inline(
    value: float | None, low: float | None, high: float | None, digits: int = SCORE_DIGITS
) -> str:
    """A statistic in the one notation, on one line of text (markup-safe)."""
    return escape(estimate_text(value, low, high, digits))


def score_cell(score: float | None, ci: tuple[float, float] | None) -> str:
    """A score (0-100) with its interval, for a table cell."""
    low, high = ci or (None, None)
    return estimate_cell(score, low, high)


def _one_item_groups(board: FBBenchLeaderboard) -> tuple[int, int]:
    """(groups of one item, groups) among the (scenario, task) groups of the model with the
    most one-item groups."""
    from checkbench.fbbench.means import EC, RM

    counts = []
    for cells in board.breakdowns.values():
        tasks = cells.get("task", {})
        sizes = [cell.n for name in (EC, RM) for cell in tasks.get(name, {}).values()]
        counts.append((sum(size == 1 for size in sizes), len(sizes)))
    return max(counts, default=(0, 0))


def _leaderboard_notes(board: FBBenchLeaderboard) -> list[str]:
    """What the scores count, one line each: the scale, unscored items, one-item groups, checks
    without a judgment entry, and whether imported files' stored scores agree with the verdicts."""
    notes = [
        "scores 0-100; EC = error correction, RM = response maintenance; unscored items "
        + ("count as 0" if board.policy == "zero" else "are left out")
    ]
    single, groups = _one_item_groups(board)
    if single:
        notes.append(
            f"{single} of {groups} (scenario, task) groups hold one item: the intervals "
            "resample those items across their groups"
        )
    unjudged = sum(row.unjudged_checks for row in board.rows)
    if unjudged:
        checks = f"{unjudged} check{'' if unjudged == 1 else 's'} without a judgment entry"
        notes.append(f"{checks} counted as not met (as published)")
    if board.score_mismatches is not None:
        notes.append(f"stored scores differ from the verdicts' on {board.score_mismatches} records")
    return notes


def print_leaderboard(board: FBBenchLeaderboard) -> None:
    """The FB-Bench leaderboard: headline scores with 95% intervals, n and unscored counts."""
    title = f"FB-Bench leaderboard, 95% bootstrap intervals (judge: {board.judge})"
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("#", justify="right")
    table.add_column("model", overflow="fold")
    for column in ("EC", "RM", "overall"):
        table.add_column(column, justify="right", no_wrap=True)
    for column in ("n", "unscored"):
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
    for note in _leaderboard_notes(board):
        console.print(f"[dim]{escape(note)}[/]", highlight=False)


def _shown_slices(board: FBBenchLeaderboard, facet: str) -> list[str]:
    """The slices of a facet to print: "all" only where it is not just EC or RM again."""
    from checkbench.fbbench.means import EC, RM

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
                    f"{value_text(cell.score)} [dim]n={cell.n}[/]" if cell else UNDEFINED
                    for cell in (column.get(value) for column in columns)
                ]
                table.add_row(value, *row)
            console.print(table)
