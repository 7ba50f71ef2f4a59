"""A command whose optional dependencies are missing says which extra to install: one line,
exit code 2, nothing written; never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_build_without_the_build_extra_names_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    blocked = (
        "import sys; sys.modules['wordllama'] = None; "  # as if the build extra were missing
        "from checkbench.cli import main; main()"
    )
    args = [str(ROOT / "examples" / "logs-mini.jsonl"), "--domain", "coding", "--out", str(out)]
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            blocked,
            "convbench",
            "build",
            *args,
            "--bench",
            str(tmp_path / "b.jsonl"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: the wordllama embedder needs the build extra")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not out.exists() and not (tmp_path / "b.jsonl").exists()
