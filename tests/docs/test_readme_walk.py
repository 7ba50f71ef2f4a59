"""The docs' tours, walked: every command of the README's "A tour of the CLI" and of each guide
(tests/docs/tours.py reads them, in walk order) runs as written, in order, in one scratch
directory holding a copy of examples/, and prints what its comment says it shows.

The `checkbench` command lines run one after another in one Python process
(tests/docs/tour_process.py: split by shell rules, then the CLI's own entry point), so the
interpreter and the embedded model load once; a block that starts a background job (`... &`)
runs as one shell script, as written. Commands under a "Needs an endpoint" or "Needs the file"
comment are skipped; the blocks of SLOW_BLOCKS, minutes of embedded-model work, are walked only
with CHECKBENCH_README_WALK=1 (the whole walk, in order).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from checkbench.report.page import read_page
from tests.conftest import ROOT
from tests.docs.tours import (
    SLOW_BLOCKS,
    WALK,
    WHOLE_WALK,
    Step,
    checkbench_commands,
    page_tour,
    shell_blocks,
    shown_pages,
    tour_steps,
)

SERVED, SERVED_PORT = "llama_cpp.server", 8000
"""The llama.cpp server example of docs/models.md (run as a shell script) and its port."""

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
    "leaderboard runs/demo --format json": (
        '"judge": "local:SmolLM2-135M-Instruct.Q4_1"',
        '"overall":',
    ),
    "checkbench --help": ("Commands", "leaderboard", "report"),
    "run examples/fb-bench-mini.json": ("FB-Bench leaderboard", "checkbench report runs/fb"),
    "fbbench import examples": ("imported", "2 models"),
    "fbbench import --sample": ("sliced (--sample 2",),
    "leaderboard runs/published": ("unscored items are left out", "model-a", "model-b"),
    "ifrewardbench-mini.json # the predictions": (
        "predictions in ifrewardbench-mini.json",
        "Pos F1",
    ),
    "ifrewardbench run examples/ifrewardbench-mini.json --judge local": ("position-bias rate",),
    "report runs/meta": ("report written to runs/meta/report.html",),
    "agreement runs/demo --human": ("Judge vs human verdicts",),
    "agreement runs/demo --reference-judge": ("against reference", "Spearman"),
    "agreement runs/demo --reference-file": ("against reference", "Spearman"),
    "calibrate runs/demo": ("Held-out items only", "artefact written to runs/calibration.json"),
    "leaderboard runs/demo --calibration": ("#calibrated",),
    "convbench build examples/logs-mini.jsonl --domain coding --out": (
        "items written to runs/logs-bench.jsonl",
    ),
    "--stop-after topics": ("keywords:", "nothing written"),
    "convbench build examples/logs-mini.jsonl --curate": ("items written to runs/fb-draft.jsonl",),
    "fbbench filter": ("written to runs/hard.jsonl",),
    "convbench score runs/published": (
        "Rank agreement with examples/reference-mini.csv",
        "Spearman",
    ),
    "scan build": ("taxonomy written to runs/tax.json",),
    "show runs/tax.json # SCAN": ("coding",),
    "scan show runs/tax.json --json": ('"coding": {',),
    "scan tag": ("items tagged", "written to runs/tagged.jsonl"),
    "scan synthesize": ("queries added", "written to runs/more.jsonl"),
    "scan pc2": ("PC^2 per model", "human agreement"),
    "run runs/tagged.jsonl": ("Scored by the FB-Bench protocol",),
    "report runs/tagged --taxonomy": ("report written to runs/tagged/report.html",),
    "scan navigate runs/tagged": ("local",),
    "scan navigate runs/published": ("model-a", "model-b"),
    SERVED: ("generate: 8 total",),
    "--samples 3": ("generate: 24 total",),
    "--candidate model-b --top 3": ("Candidate minus baseline", "Delta by tag", "met -> unmet"),
    "--candidate model-b --format json": ('"pass_to_fail": 5', '"error_correction": {'),
    "leaderboard --min-score 5": ("model-b",),
    "audit runs/published --limit 5": ("2 models, 4 items", "cannot audit: two models"),
    "audit runs/published --format json": ('"check_audits"',),
    "--write-refined runs/refined.jsonl": ("check(s) left out",),
    "--checklist refined": ("model-a", "model-b"),
}
"""What each tour command shows, keyed by a part of the command that names it alone."""
TABS = {
    "report runs/meta": ("runs/meta", "meta"),
    "report runs/tagged": ("runs/tagged", "taxonomy"),
}
"""Report commands the tour says give a tab: the run and the section of the page's data."""


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


def test_every_command_the_docs_show_is_walked() -> None:
    walked = {
        command
        for page in WALK
        for block in page_tour(page)
        for command in checkbench_commands(block)
    }
    unwalked = [
        f"{page.relative_to(ROOT)}: {command}"
        for page in shown_pages()
        for block in shell_blocks(page.read_text(encoding="utf-8"))
        for command in checkbench_commands(block)
        if command not in walked
    ]
    assert not unwalked, (
        "commands the walk does not cover (put them in a walked tour, tests/docs/tours.py WALK, "
        "under a 'Needs an endpoint'/'Needs the file' comment if they need one):\n"
        + "\n".join(unwalked)
    )
    assert len(walked) > 40


def test_every_walked_step_is_a_checkbench_command() -> None:
    steps = [step for step in tour_steps() if "\n" not in step.command]  # not a shell block
    assert all(step.command.startswith("checkbench ") for step in steps), [
        step.command for step in steps if not step.command.startswith("checkbench ")
    ]
    assert {step.page for step in tour_steps()} == set(WALK)  # every page's tour has commands


def _children_cpu() -> float:
    """CPU seconds used so far by finished child processes (a shell step's real cost, which
    other load on the machine does not inflate as it does its wall time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@dataclass(frozen=True)
class Done:
    """What a step did: exit code, output, and its wall and CPU seconds."""

    code: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float


@contextmanager
def tour_process(cwd: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """tests/docs/tour_process.py, started in `cwd`."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.docs.tour_process"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(60)


def _in_process(process: subprocess.Popen[str], command: str) -> Done:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(command) + "\n")
    process.stdin.flush()
    reply = process.stdout.readline()
    assert reply, f"the tour process ended at {command!r}"
    return Done(**json.loads(reply))


def _in_shell(script: str, cwd: Path, env: dict[str, str]) -> Done:
    started, cpu = time.monotonic(), _children_cpu()
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    wall, used = time.monotonic() - started, _children_cpu() - cpu
    return Done(done.returncode, done.stdout, done.stderr, wall, used)


def test_the_slow_blocks_are_named_and_found() -> None:
    steps = tour_steps()
    for name, command in SLOW_BLOCKS.items():
        assert any(step.slow and step.command.startswith(command) for step in steps), name
    assert sum(not step.slow and not step.skipped for step in steps) > 15


@pytest.mark.slow
@pytest.mark.parametrize(
    "whole",
    [
        False,
        pytest.param(
            True,
            marks=pytest.mark.skipif(
                os.environ.get(WHOLE_WALK) != "1",
                reason=f"{' and '.join(SLOW_BLOCKS)} take minutes: {WHOLE_WALK}=1 walks them",
            ),
        ),
    ],
    ids=["without-slow-blocks", "whole"],
)
def test_the_tour_runs_as_written(tmp_path: Path, whole: bool) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": path}
    with tour_process(tmp_path, env) as process:
        for step in tour_steps():
            if step.skipped or (step.slow and not whole):
                continue
            key = _key(step)
            if key == SERVED and not (_port_free(SERVED_PORT) and shutil.which("curl")):
                continue  # the example's fixed port is taken, or no curl to wait with
            if key == SERVED:
                done = _in_shell(step.command, tmp_path, env)
            else:
                done = _in_process(process, step.command)
            shown = " ".join(step.command.split())
            print(f"{done.wall_s:6.1f} s ({done.cpu_s:6.1f} s CPU)  {shown}", flush=True)
            assert done.code == 0, f"{step.command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            said = " ".join(done.stdout.split())
            missing = [text for text in SHOWS[key] if " ".join(text.split()) not in said]
            assert not missing, f"{step.command} does not show {missing}:\n{done.stdout[-3000:]}"
            if key in TABS:
                run_dir, section = TABS[key]
                assert _page_data(tmp_path / run_dir / "report.html")[section], step.command


def _page_data(page: Path) -> dict:
    """The data a report page renders (its inert JSON block)."""
    found = re.search(
        r'<script type="application/json" id="cb-data">(.*?)</script>', read_page(page)
    )
    assert found is not None
    return json.loads(found.group(1))
