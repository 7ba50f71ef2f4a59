"""Ctrl-C during a run: one line saying how to resume, exit code 130, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import EXAMPLE, ROOT


def test_ctrl_c_says_how_to_resume_and_exits_130(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "checkbench",
            "generate",
            str(EXAMPLE),
            "--model",
            "local",
            "--out",
            str(run_dir),
            "--max-tokens",
            "256",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal: a test run started in the background of a non-interactive
        # shell ignores SIGINT, and a child would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not (run_dir / "run.sqlite").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted: rerun the same command to resume" in err
    assert "Traceback" not in err + out


def test_sigterm_says_how_to_resume_exits_143_at_once_and_keeps_no_lock(tmp_path: Path) -> None:
    """Answers that take 8 s are in flight when SIGTERM comes: the exit does not wait for them
    (none is stored, and the run directory it made goes)."""
    from checkbench.testing import OpenAIServer

    run_dir = tmp_path / "run"
    with OpenAIServer(delay_s=8.0) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "checkbench", "generate", str(EXAMPLE), "--out", str(run_dir),
             "--model", "openai:slow", "--base-url", server.base_url],
            cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while server.in_flight == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, (out, err)
    assert "terminated: rerun the same command to resume" in err
    assert "Traceback" not in err + out
    # no answer was awaited, so no call is recorded: the run directory goes with the start
    assert not run_dir.exists()
