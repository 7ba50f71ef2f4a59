"""The files a run store lives in: the store file in its run directory, and what opening one
in a fresh directory creates (so a command that fails before writing anything removes it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from urllib.parse import quote

from checkbench.inputs import output_dir
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
    order to remove it again: its files, the lock file, the missing directories deepest first.
    A directory that cannot be made there (a parent the user may not enter) is one InputError."""
    run_dir = output_dir(run_dir)
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


def connect(path: Path, *, threads: bool, read_only: bool) -> sqlite3.Connection:
    """A connection to the store file `path` (autocommit; WAL for a writable one); a read-only
    one cannot write, even by mistake. With `threads`, usable from several threads."""
    if read_only:
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=not threads)
    else:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=not threads)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA busy_timeout=10000")
    return db
