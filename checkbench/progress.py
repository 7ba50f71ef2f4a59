"""Progress reporting for long work: a no-op sink for the API, a rich bar for the terminal."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from checkbench.calls import CallCounters


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
    """A terminal bar: done / total, rate, time left, errors, cache hits and tokens."""

    def __init__(self, console: Console | None = None) -> None:
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("[cyan]{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("[red]{task.fields[errors]} err[/] {task.fields[cached]} cached"),
            TextColumn("{task.fields[tokens]} tok"),
            console=console or Console(stderr=True),
        )
        self._task: TaskID | None = None

    def start(self, label: str, total: int) -> None:
        if self._task is not None:
            self._progress.stop_task(self._task)
        self._task = self._progress.add_task(
            label, total=total, errors=0, cached=0, tokens=0, rate="   -/s"
        )

    def advance(self, counters: CallCounters) -> None:
        assert self._task is not None
        task = self._progress.tasks[self._task]
        speed = task.speed
        self._progress.update(
            self._task,
            advance=1,
            errors=counters.errors,
            cached=counters.cached,
            tokens=counters.tokens,
            rate=f"{speed:6.1f}/s" if speed else "   -/s",
        )

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()
