"""One writer per run directory: an advisory lock that a killed process releases by itself.

The lock is `flock` on RUN_DIR/.lock, so the kernel drops it when its holder dies, even by
SIGKILL: a stale lock is taken over without guessing. The holder's pid is written into the file
for the message a second writer gets. Within one process the lock is re-entrant (a command may
open the same run twice while it works). The last release removes the file, still holding the
lock; a process that locked the removed file meanwhile sees that it is gone and locks the new one.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from checkbench.errors import InputError

LOCK_FILE = ".lock"
_held: dict[Path, tuple[IO[str], int]] = {}
"""Run directory -> (its open lock file, how many holders in this process)."""


def acquire(run_dir: Path) -> None:
    """Hold the run directory's writer lock, or say which process holds it."""
    key = run_dir.resolve()
    if key in _held:
        handle, count = _held[key]
        _held[key] = (handle, count + 1)
        return
    path = run_dir / LOCK_FILE
    while True:
        handle = path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise InputError(
                f"run directory in use by pid {holder}: wait for it to finish, or use another one",
                path=run_dir,
            ) from None
        if _is_current(handle, path):
            break
        handle.close()  # its holder removed it as we locked it: lock the file there now
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    _held[key] = (handle, 1)


def release(run_dir: Path) -> None:
    """Give up one hold; the last one unlocks."""
    key = run_dir.resolve()
    handle, count = _held[key]
    if count > 1:
        _held[key] = (handle, count - 1)
        return
    del _held[key]
    (key / LOCK_FILE).unlink(missing_ok=True)  # a clean exit leaves no lock file behind
    handle.close()  # closing the file releases the flock


def _is_current(handle: IO[str], path: Path) -> bool:
    """Whether the open lock file is still the one at `path` (not removed meanwhile)."""
    try:
        return os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        return False
