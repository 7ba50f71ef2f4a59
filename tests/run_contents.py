"""What a run holds, in a form two runs can be compared by."""

from __future__ import annotations

import sqlite3
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
