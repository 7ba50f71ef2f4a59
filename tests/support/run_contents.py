"""What a run holds, in a form two runs can be compared by, and a run killed once it holds
some rows."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from checkbench import api


def stored(run: Path) -> dict[str, list[Any]]:
    """What a run holds, latencies and times aside: responses, verdicts and calls."""
    with api.RunStore.existing(run) as store:
        responses = [r.model_dump(exclude={"latency_s"}) for r in store.responses()]
        verdicts = sorted(
            (v.item_id, v.model, v.judge, v.check_id, v.passed, v.reason, v.raw)
            for v in store.verdicts()
        )
    db = sqlite3.connect(run / "run.sqlite")
    try:
        query = "SELECT key, model, role, status, request, result FROM calls ORDER BY key, status"
        calls = db.execute(query).fetchall()
    finally:
        db.close()
    return {"responses": responses, "verdicts": verdicts, "calls": calls}


def count_rows(db: Path, query: str) -> int:
    """`query`'s count in the run store `db`; 0 while the store or its table is not there."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute(query).fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def kill_once(proc: subprocess.Popen[bytes], db: Path, query: str, rows: int) -> None:
    """SIGKILL `proc` as soon as `query` counts `rows` in its run store (within a minute,
    and before it finishes by itself)."""
    deadline = time.monotonic() + 60
    while count_rows(db, query) < rows:
        assert proc.poll() is None, "the run finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
