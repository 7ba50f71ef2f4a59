"""One writer per run directory: a second writer is told who holds it; a killed holder's lock
is taken over; readers and the holder's own nested opens are not blocked."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.store import RunStore
from tests.conftest import EXAMPLE, ROOT, run_cli

HOLD = (
    "import sys, time; from checkbench.store import RunStore; s = RunStore(sys.argv[1]); "
    "print('held', flush=True); time.sleep(120)"
)


def _holder(run_dir: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_writer_is_refused_until_the_holder_is_killed(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    holder = _holder(run_dir)
    try:
        busy = run_cli("generate", str(EXAMPLE), "--model", "local", "--out", str(run_dir))
        assert busy.returncode == 2
        assert f"run directory in use by pid {holder.pid}" in busy.stderr
        assert "Traceback" not in busy.stderr
        with RunStore.existing(run_dir) as reader:  # reading is not blocked
            assert reader.items() == []
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    time.sleep(0.1)
    with RunStore(run_dir) as store:  # the killed holder's lock is taken over
        assert store.run_dir == run_dir


def test_the_lock_is_reentrant_in_one_process_and_released_on_close(tmp_path: Path) -> None:
    outer = RunStore(tmp_path)
    inner = RunStore.existing(tmp_path, writer=True)
    inner.close()
    holder_blocked = subprocess.run(
        [sys.executable, "-c", HOLD.replace("time.sleep(120)", "pass"), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert holder_blocked.returncode != 0 and "in use by pid" in holder_blocked.stderr
    outer.close()
    with RunStore(tmp_path):
        pass
    with pytest.raises(InputError, match="in use"):
        proc = _holder(tmp_path)
        try:
            RunStore(tmp_path)
        finally:
            proc.kill()
            proc.wait(timeout=30)


def test_a_clean_exit_leaves_no_lock_file_and_the_next_writer_gets_the_lock(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with RunStore(run_dir):
        assert (run_dir / ".lock").read_text() != ""
        with RunStore(run_dir):  # nested: the inner exit keeps the lock
            pass
        assert (run_dir / ".lock").exists()
    assert not (run_dir / ".lock").exists()
    with RunStore(run_dir):
        assert (run_dir / ".lock").exists()
    assert not (run_dir / ".lock").exists()
