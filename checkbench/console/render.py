"""Terminal printing no protocol owns: what a stage did, the model calls, failures, and
statistics in the one notation of stats.notation."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from checkbench.stats.notation import (
    RATE_DIGITS,
    SCORE_DIGITS,
    UNDEFINED,
    estimate_text,
    interval_text,
    value_text,
)

if TYPE_CHECKING:
    from checkbench.stats.estimate import Stat
    from checkbench.steps.stage import RunTally, StageSummary
    from checkbench.store import RunStore, UsageRow

console = Console()


class StageOutcome(Protocol):
    """What a stage of any kind (a run's, a build's) says about its failures."""

    @property
    def stage(self) -> str: ...

    @property
    def all_failed(self) -> bool: ...


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
    from checkbench.steps.stage import RunTally
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


def exit_if_all_failed(summaries: Sequence[StageOutcome]) -> None:
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


def stat(value: Stat | None, interval: bool = True) -> str:
    """A rate (0-1) or correlation, with its interval dimmed on a second line (stats.notation);
    "-" where undefined."""
    if value is None:
        return UNDEFINED
    if not interval:
        return value_text(value.value, RATE_DIGITS)
    return estimate_cell(value.value, value.low, value.high, RATE_DIGITS)
