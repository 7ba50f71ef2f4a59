"""The files a run store lives in: the store file in its run directory, and what opening one
in a fresh directory creates (so a command that fails before writing anything removes it)."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from checkbench.store import lock

STORE_FILE = "run.sqlite"


def remove_made(made: Iterable[Path]) -> None:
    """Remove what opening a store made (`made_by_opening`, taken before it was opened), once
    it is closed again; a directory something else has put a file in since stays."""
    for path in made:
        if not path.is_dir():
            path.unlink(missing_ok=True)
            continue
        with suppress(OSError):
            path.rmdir()


def made_by_opening(run_dir: str | Path) -> list[Path]:
    """What opening a store in `run_dir` would create (nothing when a store is there), in the
    order to remove it again: its files, the lock file, the missing directories deepest first."""
    run_dir = Path(run_dir)
    store = run_dir / STORE_FILE
    if store.exists():
        return []
    made = [store, Path(f"{store}-wal"), Path(f"{store}-shm")]
    if not (run_dir / lock.LOCK_FILE).exists():
        made.append(run_dir / lock.LOCK_FILE)
    for folder in (run_dir, *run_dir.parents):
        if folder.exists():
            break
        made.append(folder)
    return made
