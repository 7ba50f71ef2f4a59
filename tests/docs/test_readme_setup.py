"""The README's first set-up command is enough for its tour: in a fresh virtual environment
that holds exactly what that command installs, the main job and every command of "A tour of
the CLI" run. (The guides' walk, tests/docs/test_readme_walk.py, runs in the test set-up.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.tours import README, page_tour, shell_blocks


def _parts(block: str) -> list[str]:
    """A block's commands: its lines' `&&`-separated parts, comments and blank lines left out."""
    lines = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    return [part.strip() for line in lines for part in line.split("&&")]


@pytest.mark.slow
def test_the_first_setup_command_is_enough_for_the_tour(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "COLUMNS": "200",
    }
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    main_job = shell_blocks((ROOT / README).read_text(encoding="utf-8"))[0]
    tour = [part for block in page_tour(README) for part in _parts(block)]
    for command in [*_parts(main_job), *tour]:
        installs = not command.startswith("checkbench")
        done = subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=ROOT if installs else work,  # pip installs the checkout; runs go to a scratch dir
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert (work / "runs" / "demo" / "report.html").is_file()
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import checkbench; print(checkbench.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(ROOT)
