"""Errors users can act on. The CLI turns them into one line and exit code 2."""

from __future__ import annotations

from pathlib import Path


class CheckbenchError(Exception):
    """Base class for errors reported to the user without a traceback."""


class InputError(CheckbenchError):
    """Bad user input, located by file, line and field where known."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": field '{self.field}'" if where else f"field '{self.field}'"
        return f"{where}: {self.message}" if where else self.message
