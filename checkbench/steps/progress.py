"""Progress reporting for long work: a no-op sink for the API, a rich bar for the terminal."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from checkbench.errors import CheckbenchError

if TYPE_CHECKING:  # the CLI imports this module before it knows a command needs the callers
    from checkbench.steps.caller import CallCounters


def _counts(counters: CallCounters) -> str:
    """Tokens so far, then cache hits and failed calls when there are any."""
    parts = [f"{counters.tokens} tok"]
    if counters.cached:
        parts.append(f"{counters.cached} cached")
    if counters.errors:
        parts.append(f"[red]{counters.errors} err[/]")
    return " ".join(parts)


class ProgressSink:
    """Receives progress events; the base class ignores them."""

    def start(self, label: str, total: int) -> None:
        """A stage with `total` units of work begins."""

    def advance(self, counters: CallCounters) -> None:
        """One unit finished; `counters` are the live call counts."""

    def __enter__(self) -> ProgressSink:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the display."""


class RichProgress(ProgressSink):
    """A terminal bar: done / total, rate, time left, tokens, cache hits and errors.

    The numbers keep their width on a narrow terminal; a long stage label is cut short."""

    def __init__(self, console: Console | None = None) -> None:
        from checkbench.steps.caller import CallCounters

        self._progress = Progress(
            TextColumn(
                "[bold]{task.description}",
                table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis", min_width=8),
            ),
            BarColumn(bar_width=10),
            MofNCompleteColumn(),
            TextColumn("[cyan]{task.fields[rate]}"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[counts]}"),
            console=console or Console(stderr=True),
            expand=True,
        )
        self._task: TaskID | None = None
        self._shown = False
        self._counts = _counts(CallCounters())  # last seen: a new stage's bar starts from them

    def start(self, label: str, total: int) -> None:
        """Show a bar for the stage; a stage with nothing to do shows none."""
        if self._task is not None:
            self._progress.stop_task(self._task)
        self._task = None
        if total > 0:
            if not self._shown:
                self._progress.start()
                self._shown = True
            self._task = self._progress.add_task(
                label, total=total, counts=self._counts, rate="   -/s"
            )

    def advance(self, counters: CallCounters) -> None:
        if self._task is None:
            return
        task = self._progress.tasks[self._task]
        speed = task.speed
        self._counts = _counts(counters)
        self._progress.update(
            self._task,
            advance=1,
            counts=self._counts,
            rate=f"{speed:6.1f}/s" if speed else "   -/s",
        )

    def __enter__(self) -> RichProgress:
        """The display appears with the first stage that has work, so work that fails before
        (bad input) or has nothing to do leaves the terminal untouched."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._shown:
            if isinstance(exc, CheckbenchError):  # the error's one line stands alone
                self._progress.live.transient = True
            self._progress.stop()
