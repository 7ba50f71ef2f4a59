"""The README's tour, walked: every command of 'A tour of the CLI' runs as written, in order, in
a scratch directory holding a copy of examples/, and prints what the README says it shows.

Commands under a comment starting "Needs an endpoint" or "Needs the file" are skipped, up to the
next comment. A block that starts a background job (`... &`) runs as one shell script. The walk
takes about 16 minutes on two cores, so it runs with CHECKBENCH_README_WALK=1; that every
command has its expected output listed is checked always.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

TOUR = "## A tour of the CLI"
MARKERS = ("# Needs an endpoint", "# Needs the file")
SERVED_PORT = 8000
"""The port the README's llama.cpp server example listens on."""

SHOWS: dict[str, tuple[str, ...]] = {
    "run examples/feedback-mini.jsonl": (
        "Scored by the FB-Bench protocol",
        "FB-Bench leaderboard",
        "(scenario, task) groups hold one item",
        "checkbench report runs/demo",
        "runs/demo/report.html",
    ),
    "generate examples/feedback-mini.jsonl --model local": ("8 already done, 0 model calls",),
    "judge runs/demo --judge local --mode logprob": ("judge", "8 total"),
    "leaderboard runs/demo --judge-id": ('"judge": "local:SmolLM2-135M-Instruct.Q4_1#logprob"',),
    "report runs/demo": ("report written to runs/demo/report.html",),
    "run examples/fb-bench-mini.json": ("FB-Bench leaderboard", "checkbench report runs/fb"),
    "import fb-bench-judgments examples": ("imported", "2 models"),
    "leaderboard runs/published": ("unscored items are left out", "model-a", "model-b"),
    "ifrewardbench-mini.json # the predictions": (
        "predictions in ifrewardbench-mini.json",
        "Pos F1",
    ),
    "meta examples/ifrewardbench-mini.json --judge local": ("position-bias rate",),
    "report runs/meta": ("report written to runs/meta/report.html",),
    "agreement runs/demo --human": ("Judge vs human verdicts",),
    "agreement runs/demo --reference-judge": ("against reference", "Spearman"),
    "agreement runs/demo --reference-file": ("against reference", "Spearman"),
    "calibrate runs/demo": ("Held-out items only", "artefact written to runs/calibration.json"),
    "leaderboard runs/demo --calibration": ("#calibrated",),
    "build examples/logs-mini.jsonl --domain coding --out": (
        "items written to runs/logs-bench.jsonl",
    ),
    "--stop-after topics": ("keywords:", "nothing written"),
    "build examples/logs-mini.jsonl --curate": ("items written to runs/fb-draft.jsonl",),
    "build filter": ("written to runs/hard.jsonl",),
    "score runs/published": ("Rank agreement with examples/reference-mini.csv", "Spearman"),
    "taxonomy build": ("taxonomy written to runs/tax.json",),
    "show runs/tax.json # SCAN": ("coding",),
    "taxonomy show runs/tax.json --json": ('"coding": {',),
    "taxonomy tag": ("items tagged", "written to runs/tagged.jsonl"),
    "taxonomy synthesize": ("queries added", "written to runs/more.jsonl"),
    "taxonomy pc2": ("PC^2 per model", "human agreement"),
    "run runs/tagged.jsonl": ("Scored by the FB-Bench protocol",),
    "report runs/tagged --taxonomy": ("report written to runs/tagged/report.html",),
    "taxonomy navigate runs/tagged": ("local",),
    "taxonomy navigate runs/published": ("model-a", "model-b"),
    "llama_cpp.server": ("generate: 8 total",),
}
"""What each tour command shows, keyed by a part of the command that names it alone."""
TABS = {
    "report runs/meta": ("runs/meta", "meta"),
    "report runs/tagged": ("runs/tagged", "taxonomy"),
}
"""Report commands the tour says give a tab: the run and the section of the page's data."""


@dataclass(frozen=True)
class Step:
    """One command of the tour as written (continuation lines joined), or a whole block that
    runs a background job."""

    command: str
    skipped: bool


def _block_steps(block: str) -> list[Step]:
    steps, command, skipped, in_comment = [], "", False, False
    for line in block.splitlines():
        if line.startswith("#"):
            skipped = line.startswith(MARKERS) or (skipped and in_comment)
            in_comment = True
            continue
        in_comment = False
        if not line.strip():
            continue
        command += line
        if line.endswith("\\"):
            command = command[:-1]
            continue
        steps.append(Step(command, skipped))
        command = ""
    if any(step.command.rstrip().endswith("&") for step in steps):
        return [Step(block, False)]
    return steps


def tour_steps() -> list[Step]:
    """The tour's commands in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(TOUR, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [step for block in blocks for step in _block_steps(block)]


def _key(step: Step) -> str:
    text = re.sub(r"\s+", " ", step.command) + " "
    keys = [key for key in SHOWS if re.sub(r"\s+", " ", key) in text]
    assert len(keys) == 1, f"{step.command!r} matches {keys} in SHOWS"
    return keys[0]


def test_every_tour_command_says_what_it_shows() -> None:
    steps = [step for step in tour_steps() if not step.skipped]
    assert len(steps) > 20
    keys = [_key(step) for step in steps]
    assert set(keys) == set(SHOWS)  # every command has its entry, every entry a command
    assert any(step.skipped for step in tour_steps())


def _children_cpu() -> float:
    """CPU seconds used so far by finished child processes (the commands' real cost, which
    other load on the machine does not inflate as it does their wall time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("CHECKBENCH_README_WALK") != "1",
    reason="the whole tour takes about 16 minutes: set CHECKBENCH_README_WALK=1 to walk it",
)
def test_the_tour_runs_as_written(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": path}
    for step in tour_steps():
        if step.skipped:
            continue
        key = _key(step)
        if key == "llama_cpp.server" and not (_port_free(SERVED_PORT) and shutil.which("curl")):
            continue  # the example's fixed port is taken, or no curl to wait with
        started, cpu = time.monotonic(), _children_cpu()
        done = subprocess.run(
            ["bash", "-e", "-c", step.command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        wall, used = time.monotonic() - started, _children_cpu() - cpu
        print(f"{wall:6.1f} s ({used:6.1f} s CPU)  {' '.join(step.command.split())}", flush=True)
        assert done.returncode == 0, f"{step.command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        said = " ".join(done.stdout.split())
        missing = [text for text in SHOWS[key] if " ".join(text.split()) not in said]
        assert not missing, f"{step.command} does not show {missing}:\n{done.stdout[-3000:]}"
        if key in TABS:
            run_dir, section = TABS[key]
            assert _page_data(tmp_path / run_dir / "report.html")[section], step.command


def _page_data(page: Path) -> dict:
    """The data a report page renders (its inert JSON block)."""
    found = re.search(
        r'<script type="application/json" id="cb-data">(.*?)</script>', page.read_text()
    )
    assert found is not None
    return json.loads(found.group(1))
