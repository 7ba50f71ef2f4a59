"""Each command opens its run store once: what it prints comes from what the API returned,
not from a second read of the run (counted in-process by the `opened` fixture)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from checkbench.cli import app, commands  # noqa: F401  (registers the commands)
from checkbench.testing import OpenAIServer, Reply, completion
from checkbench.testing.answers import schema_answer
from tests.conftest import EXAMPLE, ROOT
from tests.ifrewardbench.test_cli import ALWAYS_YES_AND_A, tiny_file
from tests.judges.test_judges_cli import _calibration_run
from tests.llm.test_endpoints import bench

CALLS = "Model calls of this command"
"""The title of the calls table a command prints after its stages."""


def _cli(*args: str | Path) -> str:
    """Run `checkbench ARGS` in this process; what it printed (it must succeed)."""
    result = CliRunner().invoke(app, [str(arg) for arg in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


def _once(opened: Counter[Path], run_dir: Path) -> None:
    """The command just run opened `run_dir`'s store once and no other; the count restarts."""
    assert dict(opened) == {run_dir.resolve(): 1}
    opened.clear()


def test_generate_judge_and_score_open_the_run_once(tmp_path: Path, opened: Counter[Path]) -> None:
    run_dir = tmp_path / "run"
    with OpenAIServer() as server:
        url = server.base_url
        generated = _cli(
            "generate", bench(tmp_path / "b.jsonl"), "-o", run_dir, "-m", f"openai:c@{url}"
        )
        _once(opened, run_dir)
        again = _cli(
            "generate", bench(tmp_path / "b.jsonl"), "-o", run_dir, "-m", f"openai:c@{url}"
        )
        _once(opened, run_dir)  # a rerun too: the store it finds is read on the same opening
        judged = _cli("judge", run_dir, "--judge", f"openai:j@{url}")
        _once(opened, run_dir)
    assert CALLS in generated and CALLS in judged  # the calls table, from what the API returned
    assert "3 already done" in again
    assert "checkbench convbench score" in " ".join(judged.split())
    assert '"judge"' in _cli("convbench", "score", run_dir, "--json")
    _once(opened, run_dir)


def test_run_and_leaderboard_open_the_run_once(tmp_path: Path, opened: Counter[Path]) -> None:
    run_dir = tmp_path / "run"
    with OpenAIServer() as server:
        url = server.base_url
        shown = _cli(
            "run", EXAMPLE, "-o", run_dir, "-m", f"openai:c@{url}", "--judge", f"openai:j@{url}"
        )
    _once(opened, run_dir)
    assert "FB-Bench" in shown and CALLS in shown
    assert '"rows"' in _cli("leaderboard", run_dir, "--json")
    _once(opened, run_dir)


def test_a_calibrated_leaderboard_opens_the_run_once(tmp_path: Path, opened: Counter[Path]) -> None:
    run_dir, _ = _calibration_run(tmp_path)
    _cli("calibrate", run_dir, "--judge-id", "cheap", "--reference-judge", "ref")
    opened.clear()
    board = _cli("leaderboard", run_dir, "--calibration", "cheap#calibrated", "--json")
    _once(opened, run_dir)
    assert "cheap#calibrated" in board


def test_a_judge_meta_evaluation_opens_its_run_once(tmp_path: Path, opened: Counter[Path]) -> None:
    run_dir = tmp_path / "meta"
    with OpenAIServer(Reply(body=completion(ALWAYS_YES_AND_A))) as server:
        args = ("ifrewardbench", "run", tiny_file(tmp_path), "--judge", "openai:alpha")
        shown = _cli(*args, "--base-url", server.base_url, "--out", run_dir)
    _once(opened, run_dir)
    assert CALLS in shown


def test_tagging_opens_its_run_once(tmp_path: Path, opened: Counter[Path]) -> None:
    run_dir, examples = tmp_path / "run", ROOT / "examples"
    with OpenAIServer() as server:
        shown = _cli(
            "scan", "tag", examples / "feedback-mini.jsonl",
            "--taxonomy", examples / "taxonomy-mini.json", "--out", run_dir,
            "--bench-out", tmp_path / "tagged.jsonl", "--model", f"openai:t@{server.base_url}",
        )  # fmt: skip
    _once(opened, run_dir)
    assert "items tagged" in shown and CALLS in shown


def test_a_build_opens_its_run_once(tmp_path: Path, opened: Counter[Path]) -> None:
    run_dir, logs = tmp_path / "run", ROOT / "examples" / "logs-mini.jsonl"
    with OpenAIServer(schema_answer) as server:
        args = ("convbench", "build", logs, "--domain", "coding", "--out", run_dir)
        model = ("--model", f"openai:b@{server.base_url}")
        shown = _cli(*args, "--bench", tmp_path / "bench.jsonl", *model)
        _once(opened, run_dir)
        rerun = [str(a) for a in (*args, "--bench", tmp_path / "again.jsonl", *model)]
        again = CliRunner().invoke(app, [*rerun, "--table-format", "json"])
    assert CALLS in shown and again.exit_code == 0, again.output
    assert json.loads(again.stdout)["calls"] == []  # the rerun asked nothing: none of its own
    assert dict(opened) == {run_dir.resolve(): 2}  # a rerun checks the stored build first
