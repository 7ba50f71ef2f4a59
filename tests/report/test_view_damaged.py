"""`checkbench view` on a store whose verdict rows are damaged after the page was built: the
item records the page asks for fail with one line naming the row, not a traceback."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import httpx

from tests.report.report_run import build_plain, serving


def test_a_damaged_row_read_for_the_page_is_named_in_one_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    build_plain(run_dir, judged=True)
    with closing(sqlite3.connect(run_dir / "run.sqlite")) as db, db:
        db.execute("UPDATE verdicts SET body = '[]' WHERE item_id = 'q3'")
    with serving(run_dir) as url:
        fine = httpx.get(f"{url}api/items", params={"at": "0"})
        damaged = httpx.get(f"{url}api/items", params={"at": "3"})
    assert fine.status_code == 200 and fine.json()["records"]
    assert damaged.status_code == 500
    assert damaged.text.startswith(f"{run_dir / 'run.sqlite'}: field 'body': damaged row q3/")
    assert "of table verdicts" in damaged.text and "Traceback" not in damaged.text
