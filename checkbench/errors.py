"""Errors users can act on. The CLI turns them into one line and exit code 2."""

from __future__ import annotations

import errno
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


NO_SPACE = "no space left on device: free some space, then rerun the same command"
SQLITE_FULL = 13
"""SQLite's result code for a write that found the disk (or the file's size limit) full."""


def disk_full(exc: BaseException) -> bool:
    """Whether `exc` says the disk is full: ENOSPC (or EDQUOT) from the OS, SQLITE_FULL from
    SQLite."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL


def full_disk_error(exc: BaseException, path: str | Path | None = None) -> InputError:
    """The one line for a full disk, naming the file that could not be written."""
    where = path if path is not None else getattr(exc, "filename", None)
    return InputError(NO_SPACE, path=where)
