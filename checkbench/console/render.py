"""Terminal printing no protocol owns: what a stage did, the model calls, failures, and
statistics in the one notation of stats.notation."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import typer
from rich.console import Console
from rich.markup import escape

from checkbench.console.calls import print_calls
from checkbench.stats.notation import (
    RATE_DIGITS,
    SCORE_DIGITS,
    UNDEFINED,
    estimate_text,
    interval_text,
    value_text,
)

if TYPE_CHECKING:
    from checkbench.console.output import Printout
    from checkbench.stats.estimate import Stat
    from checkbench.steps.stage import RunTally, StageSummary
    from checkbench.store.scope import Scope

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
        f"{summary.total} {summary.counted}",
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


def print_stage(summary: StageSummary, shown: int = 10, printout: Printout | None = None) -> None:
    """One line saying what a stage did, then what it left unscored (the first `shown`)."""
    echo = printout.info if printout is not None else _echo
    echo(stage_line(summary))
    if summary.unscored:
        listed = ", ".join(summary.unscored[:shown])
        more = len(summary.unscored) - shown
        suffix = f" and {more} more" if more > 0 else ""
        echo(
            f"[yellow]{len(summary.unscored)} left unscored[/] (asked again on a rerun): "
            f"{escape(listed)}{suffix}"
        )


def _echo(markup: str) -> None:
    console.print(markup, highlight=False)


def print_tally(
    summaries: Sequence[StageSummary],
    tally: RunTally | None,
    *,
    failures: bool = False,
    printout: Printout | None = None,
) -> None:
    """Each stage's line, then (for answering stages) why answers failed, then the calls table
    of the command's calls (the stage lines alone without a `tally`), in the printout's format
    when given."""
    for summary in summaries:
        print_stage(summary, printout=printout)
    if tally is None:
        return
    if failures:
        print_failed_responses(tally.failed_answers, printout=printout)
    if printout is not None:
        printout.calls(tally.usage, tally.limits, tally.prices)
    else:
        print_calls(tally.usage, tally.limits, tally.prices, console)


def report_hint(run_dir: Path) -> str:
    """The command that writes the run's report on a line of its own (never broken where it
    fits the terminal), then the file it writes (markup)."""
    command = f"checkbench report {shlex.quote(str(run_dir))}"
    return f"report: [bold]{escape(command)}[/]\nwrites {escape(str(run_dir / 'report.html'))}"


def exit_if_all_failed(summaries: Sequence[StageOutcome]) -> None:
    """Exit with code 1 when a stage failed on everything it tried (a run's stages, or a
    build's): results are recorded, but a script should not take the run for a success."""
    failed = [s.stage for s in summaries if s.all_failed]
    if failed:
        err = Console(stderr=True)
        err.print(f"[bold red]error:[/] every attempt failed in: {', '.join(failed)}")
        raise typer.Exit(1)


def print_failed_responses(
    failed: Mapping[str, int], shown: int = 3, printout: Printout | None = None
) -> None:
    """Why answers failed: the most frequent error messages with their counts."""
    echo = printout.info if printout is not None else _echo
    errors = Counter(failed)
    for error, count in errors.most_common(shown):
        echo(f"[red]{count} failed:[/] {escape(error)}")
    if len(errors) > shown:
        echo(f"[dim]({len(errors) - shown} other error messages)[/]")


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
    value: float | None,
    low: float | None,
    high: float | None,
    digits: int = SCORE_DIGITS,
    why: str | None = None,
) -> str:
    """A statistic in the one notation, on one line of text (markup-safe), with why its
    interval is degenerate when it is."""
    return escape(estimate_text(value, low, high, digits, why=why))


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
    shown = estimate_cell(value.value, value.low, value.high, RATE_DIGITS)
    return f"{shown}\n[dim]({escape(value.why)})[/]" if value.why else shown


def note_scores(judge: str, scope: Scope | None, items: int, warning: str | None) -> None:
    """On stderr (JSON output stays whole): the warning of the calibration that made the
    judge, if it has one, and a note when the judge judged a slice of the run (`scope`, of
    the run's `items` items): its scores cover that."""
    from checkbench.console import err_console

    if warning is not None:
        Console(stderr=True, soft_wrap=True).print(warning, style="bold yellow", highlight=False)
    if scope is None or scope.whole:
        return
    shown = f"{len(scope.item_ids)} of {items} items" if scope.item_ids is not None else "items"
    models = f", models {', '.join(scope.models)}" if scope.models is not None else ""
    err_console.print(
        f"note: judge {judge} judged a slice of this run ({scope.spec}): the scores cover its "
        f"{shown}{models}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
