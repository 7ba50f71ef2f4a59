"""What a command tells a new user to do next works at that point (after `run` and after
`judge`, on runs judged once or twice, by either protocol), and a judge meta-evaluation's
report ranks its judges, not the benchmark's responses."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest
from rich.console import Console

from checkbench.benchmarks import load_items
from checkbench.cli import evaluate
from checkbench.console import render
from checkbench.report.assemble import build_report
from checkbench.schema import Response, Verdict
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import ROOT, run_cli
from tests.ifrewardbench.test_cli import ALWAYS_YES_AND_A, tiny_file
from tests.llm.test_endpoints import bench

JUDGES = ("local:SmolLM2-135M-Instruct.Q4_1", "local:SmolLM2-135M-Instruct.Q4_1#logprob")


def _judged_twice(run_dir: Path) -> None:
    with RunStore(run_dir) as store:
        items = load_items(ROOT / "examples" / "feedback-mini.jsonl")
        store.add_items(items)
        for n, item in enumerate(items):
            store.put_response(Response(item_id=item.id, model="m", content="answer"))
            store.put_verdicts(
                Verdict(item_id=item.id, model="m", judge=judge, check_id=c.id, passed=n % 2 == 0)
                for judge in JUDGES
                for c in item.checklist
            )


def _hint(run_dir: Path, judge: str) -> str:
    shown = io.StringIO()
    console, render.console = evaluate.console, Console(file=shown, width=400)
    evaluate.console = render.console
    try:
        with RunStore.existing(run_dir) as store:
            judges = store.judges()
        evaluate.print_next_steps(run_dir, "leaderboard", judge, judges)
    finally:
        evaluate.console = render.console = console
    return shown.getvalue()


def test_the_hints_of_run_work_on_a_run_judged_twice(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    _judged_twice(run_dir)
    assert run_cli("leaderboard", str(run_dir), "--json").returncode == 2  # the bare command
    hint = " ".join(_hint(run_dir, JUDGES[1]).split())  # a command a line
    commands = re.findall(r"(checkbench [^;]+?)(?:;| writes)", hint)
    assert len(commands) == 2 and f"{run_dir / 'report.html'}" in hint
    board, report = (run_cli(*shlex.split(command)[1:]) for command in commands)
    assert board.returncode == 0, board.stderr
    assert json.loads(board.stdout)["judge"] == JUDGES[1]
    assert report.returncode == 0 and (run_dir / "report.html").is_file()


def _printed_commands(stdout: str) -> list[str]:
    """The commands a hint line names (unwrapped from the terminal's lines)."""
    said = " ".join(stdout.split())
    return re.findall(r"(checkbench [^;]+?)(?:;| writes)", said.split("Run stored in ")[-1])


@pytest.mark.parametrize(
    ("bench_file", "scoring"),
    [(ROOT / "examples" / "feedback-mini.jsonl", "leaderboard"), (None, "convbench score")],
    ids=["fb-bench", "conv-to-bench"],
)
def test_the_hints_of_judge_work_on_a_run_judged_once_and_twice(
    tmp_path: Path, bench_file: Path | None, scoring: str
) -> None:
    items = bench_file or bench(tmp_path / "b.jsonl", 3)
    run_dir = tmp_path / "run"
    with OpenAIServer() as server:
        generated = run_cli(
            "generate", str(items), "--out", str(run_dir), "-m", f"openai:c@{server.base_url}"
        )
        assert generated.returncode == 0, generated.stderr
        for judge in ("openai:first", "openai:second"):
            args = ["judge", str(run_dir), "--judge", f"{judge}@{server.base_url}"]
            judged = run_cli(*args)
            assert judged.returncode == 0, judged.stderr
            commands = _printed_commands(judged.stdout)
            assert len(commands) == 2 and commands[0].startswith(f"checkbench {scoring} ")
            assert commands[1].startswith("checkbench report ")
            assert ("--judge-id" in commands[0]) == (judge == "openai:second")
            shown, report = (run_cli(*shlex.split(command)[1:]) for command in commands)
            assert shown.returncode == 0, shown.stderr
            assert json.loads(shown.stdout)["judge"] == f"{judge}@{server.base_url}"
            assert report.returncode == 0 and (run_dir / "report.html").is_file()


def test_a_meta_run_reports_its_judges_and_says_how(tmp_path: Path) -> None:
    path, run_dir = tiny_file(tmp_path), tmp_path / "meta"
    with OpenAIServer(Reply(body=completion(ALWAYS_YES_AND_A))) as server:
        args = ["meta", str(path), "--judge", "openai:alpha", "--judge", "openai:beta"]
        result = run_cli(*args, "--base-url", server.base_url, "--out", str(run_dir))
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split())
    assert f"checkbench report {run_dir} writes {run_dir / 'report.html'}" in said
    with RunStore.existing(run_dir) as store:
        assert sorted(store.models()) == ["0", "1", "2"]  # the file's responses, not models
        data = build_report(store).data
    assert data["leaderboards"] == []
    assert sorted(data["meta"]["judges"]) == ["openai:alpha", "openai:beta"]
