"""A full disk is one line naming the file that could not be written, exit code 2, and no
partial state: on a real small filesystem (tmpfs, where it can be mounted) and through SQLite's
own size limit (everywhere)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.schema import Item
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import run_cli


def _bench(path: Path, n: int) -> Path:
    with path.open("w") as out:
        for i in range(n):
            item = {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"question {i}"}],
                "checklist": [{"id": "c1", "text": "answers"}],
            }
            out.write(json.dumps(item) + "\n")
    return path


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 300 KiB tmpfs: mounting one needs root (skipped otherwise)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_disk_filling_up_mid_run_is_one_line_naming_the_store(
    tmp_path: Path, small_disk: Path
) -> None:
    bench = _bench(tmp_path / "b.jsonl", 60)
    run = small_disk / "run"
    with OpenAIServer(Reply(body=completion("x" * 4000))) as server:
        done = run_cli("generate", str(bench), "-o", str(run), "-m", f"openai:s@{server.base_url}")
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert done.returncode == 2, done.stderr
    assert errors == [
        f"error: {run}/run.sqlite: no space left on device: free some space, "
        "then rerun the same command"
    ]
    assert "Traceback" not in done.stderr and "rollback" not in done.stderr
    page = run / "report.html"
    report = run_cli("report", str(run), "-o", str(page))
    assert report.returncode == 2
    assert f"{page}: no space left on device" in report.stderr
    assert not page.exists() and not list(run.glob(".report.html.*"))


def test_a_disk_full_before_the_first_call_leaves_no_run_directory(
    tmp_path: Path, small_disk: Path
) -> None:
    bench = _bench(tmp_path / "b.jsonl", 3000)  # its items alone do not fit
    run = small_disk / "run"
    done = run_cli("generate", str(bench), "-o", str(run), "-m", "openai:s@http://127.0.0.1:9/v1")
    assert done.returncode == 2 and "run.sqlite: no space left on device" in done.stderr
    assert not run.exists()


def test_sqlite_finding_its_file_full_is_the_same_line_and_keeps_the_store(tmp_path: Path) -> None:
    """SQLite's size limit (max_page_count) fails a write as a full disk does (SQLITE_FULL):
    the transaction is rolled back by SQLite itself, and the error names the store."""
    items = [
        Item.model_validate(
            {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": "y" * 2000}],
                "checklist": [{"id": "c1", "text": "answers"}],
            }
        )
        for i in range(200)
    ]
    with (
        pytest.raises(InputError, match="no space left on device") as raised,
        RunStore(tmp_path / "run") as store,
    ):
        store.add_items(items[:1])
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages + 4}")
        store.add_items(items[1:])
    assert raised.value.path == str(tmp_path / "run" / "run.sqlite")
    with RunStore.existing(tmp_path / "run") as store:
        assert [item.id for item in store.items()] == ["q0"]
