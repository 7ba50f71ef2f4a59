"""The report's cascade section from the run store: who decided each verdict counted from the
verdicts, and a stored summary that does not validate named in one line, the rest shown."""

from __future__ import annotations

import sqlite3
from contextlib import ExitStack, closing
from pathlib import Path

from checkbench.judges.cascade import CascadeSettings
from checkbench.report.assemble import build_report
from checkbench.store import RunStore
from checkbench.store.files import STORE_FILE
from tests.judges.test_cascade import CASCADE_RECORD, Judges, _run


def test_the_section_counts_deciders_and_names_a_broken_record(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    with ExitStack() as stack:
        summary = Judges(run_dir, tmp_path, stack).run(run_dir, CascadeSettings(band=(0.4, 0.6)))
    with closing(sqlite3.connect(run_dir / STORE_FILE)) as db, db:  # as a damaged store has it
        db.execute(
            "INSERT INTO records(kind, key, body) VALUES (?, ?, ?)",
            (CASCADE_RECORD.name, "cascade:broken", '{"judge": "cascade:broken"}'),
        )
    with RunStore.existing(run_dir, read_only=True) as store:
        section = build_report(store).data["cascade"]
    [shown] = section["cascades"]
    assert shown["summary"]["judge"] == summary.judge
    decided = {d["judge"]: d["checks"] for d in shown["decided"]}
    kept = summary.checks - summary.escalated
    assert decided == {"strong": summary.escalated, summary.cheap: kept}
    [problem] = section["problems"]
    assert problem.startswith("cascade record 'cascade:broken' is not readable (")
