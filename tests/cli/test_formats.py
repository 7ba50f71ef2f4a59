"""Every command that prints a table, in every `--format`, and at any width and any number of
models (issue 34): csv parses through the csv module, json through json, Markdown has a header
separator row under each table's header; as tables at 80, 120 and 200 columns with 2, 6 and 27
models (made from the 6 FB-Bench published judgment files), no line is wider than the
terminal, every model's full name is on a line and every number is whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkbench.console.calls import TITLE as CALLS_TITLE
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion, deterministic
from tests.conftest import ROOT, run_cli
from tests.fbbench.test_published import needs_data
from tests.ifrewardbench.test_cli import ALWAYS_YES_AND_A, tiny_file
from tests.llm.test_endpoints import bench
from tests.support.formats import (
    COUNTS,
    FORMATS,
    WIDTHS,
    fits,
    many_models,
    model_names,
    parsed,
)

pytestmark = needs_data
BASELINE = "DeepSeek-V3"
MINI = ROOT / "examples" / "ifrewardbench-mini.json"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    tmp = tmp_path_factory.mktemp("formats")
    return {count: many_models(count, tmp) for count in COUNTS}


@pytest.fixture(scope="module")
def reference(runs: dict[int, Path]) -> Path:
    """Reference verdicts for the 6-model run: the judge's, one in five flipped."""
    path = runs[6].parent / "reference.jsonl"
    with RunStore.existing(runs[6]) as store:
        lines = [
            json.dumps(
                {
                    "item_id": v.item_id,
                    "model": v.model,
                    "check_id": v.check_id,
                    "passed": v.passed if k % 5 else not v.passed,
                }
            )
            for k, v in enumerate(store.verdicts())
            if v.passed is not None
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _commands(run: Path, reference: Path) -> dict[str, list[str]]:
    return {
        "leaderboard": ["leaderboard", str(run)],
        "compare": ["compare", str(run), "--baseline", BASELINE, "--resamples", "200"],
        "audit": ["audit", str(run)],
        "agreement": ["agreement", str(run), "--reference-file", str(reference)],
        "navigate": ["scan", "navigate", str(run), "--facets", "task,subtask"],
        "ifrewardbench": [
            "ifrewardbench",
            "run",
            str(ROOT / "examples" / "ifrewardbench-mini.json"),
        ],
    }


def _printed(args: list[str], fmt: str, flag: str = "--format", **env: str) -> Any:
    result = run_cli(*args, flag, fmt, env=env or None)
    assert result.returncode == 0, result.stderr
    return parsed(fmt, result.stdout)


@pytest.mark.parametrize("fmt", FORMATS[1:])  # as a table: the width tests below
@pytest.mark.parametrize(
    "command", ["leaderboard", "compare", "audit", "agreement", "navigate", "ifrewardbench"]
)
def test_each_table_command_prints_each_format(
    runs: dict[int, Path], reference: Path, command: str, fmt: str
) -> None:
    shown = _printed(_commands(runs[6], reference)[command], fmt)
    if fmt == "csv":
        assert all(row["table"] and row["row"] and row["column"] for row in shown)
    elif fmt == "markdown":
        assert all(len(table) >= 2 for table in shown)  # a header and a row at least
    else:
        assert shown and isinstance(shown, dict | list)


def test_the_hidden_json_flag_is_format_json(runs: dict[int, Path], reference: Path) -> None:
    for command in ("compare", "navigate"):
        args = _commands(runs[2], reference)[command]
        by_flag = run_cli(*args, "--json")
        assert by_flag.returncode == 0, by_flag.stderr
        assert json.loads(by_flag.stdout) == _printed(args, "json")
        assert "--json" not in run_cli(*args[: 2 if args[0] == "scan" else 1], "--help").stdout


@pytest.mark.parametrize("fmt", FORMATS)
def test_convbench_build_takes_its_table_format_as_table_format(tmp_path: Path, fmt: str) -> None:
    """--format is the logs' format there: the tables' is --table-format."""
    logs = ROOT / "examples" / "logs-mini.jsonl"
    args = ["convbench", "build", str(logs), "--stop-after", "topics"]
    result = run_cli(*args, "--table-format", fmt, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = parsed(fmt, result.stdout)
    if fmt == "json":
        assert shown["topics"]["n"] == 9
    elif fmt == "csv":
        assert {row["row"] for row in shown} >= {"read", "topics"}
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_calls_table_follows_the_format(tmp_path: Path, fmt: str) -> None:
    """A command that calls models prints its calls table in its format: in the JSON under
    `calls`, in csv and Markdown as one more table; its progress lines go to stderr."""
    path, run_dir = tiny_file(tmp_path), tmp_path / "run"
    with OpenAIServer(Reply(body=completion(ALWAYS_YES_AND_A))) as server:
        args = ["ifrewardbench", "run", str(path), "--judge", "openai:alpha"]
        args += ["--base-url", server.base_url, "--out", str(run_dir)]
        result = run_cli(*args, "--format", fmt)
    assert result.returncode == 0, result.stderr
    shown = parsed(fmt, result.stdout)
    if fmt == "json":
        [calls] = shown["calls"]
        assert (calls["model"], calls["role"], calls["calls"]) == ("openai:alpha", "judge", 5)
        assert shown["overall"]["positive_f1"]["n"] > 0
    elif fmt == "csv":
        calls = [row for row in shown if row["table"] == CALLS_TITLE]
        assert {row["row"] for row in calls} == {"openai:alpha (judge)"}
        assert {row["column"]: row["value"] for row in calls}["calls"] == "5"
    elif fmt == "markdown":
        assert next(
            row[:2] for table in shown for row in table if row[0] == "openai:alpha (judge)"
        ) == ["openai:alpha (judge)", "5"]
    if fmt != "table":
        assert "model calls" in result.stderr and "model calls" not in result.stdout


@pytest.fixture(scope="module")
def expected(runs: dict[int, Path], reference: Path) -> dict[tuple[str, int], Any]:
    """Each command's JSON per number of models: what its table must show."""
    return {
        (command, count): _printed(_commands(runs[count], reference)[command], "json")
        for command in ("leaderboard", "compare", "navigate")
        for count in COUNTS
    }


def _numbers(command: str, shown: Any) -> list[str]:
    """The numbers a command's table prints, as its cells print them."""
    if command == "leaderboard":
        return [f"{row['overall']:.2f}" for row in shown["rows"]]
    if command == "compare":
        return [f"{c['delta']:+.2f}" for c in shown]
    nodes = [shown["overall"], *shown["nodes"]]
    return [f"{c['mean'] * 100:.2f}" for n in nodes for c in n["cells"].values() if c["mean"]]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("command", ["leaderboard", "compare", "navigate"])
def test_tables_fit_any_width_with_any_number_of_models(
    runs: dict[int, Path],
    reference: Path,
    expected: dict[tuple[str, int], Any],
    command: str,
    count: int,
    width: int,
) -> None:
    args = _commands(runs[count], reference)[command]
    if command == "leaderboard":
        args.append("--no-breakdowns")  # the breakdowns: tests/console/test_tables.py
    lines = _printed(args, "table", COLUMNS=str(width))
    if command == "navigate":  # the scores per node, before the first model's profile
        lines = lines[: next(k for k, line in enumerate(lines) if " overall " in line)]
    fits(lines, width, model_names(count), _numbers(command, expected[command, count]))


def test_navigate_says_why_a_cell_is_empty(tmp_path: Path) -> None:
    """A model without an answer at a node: its cell says why instead of a score."""
    run_dir = many_models(2, tmp_path, skip=(1, "Coding"))
    lines = _printed(["scan", "navigate", str(run_dir), "--facets", "task,subtask"], "table")
    assert any("(none scored: 88 unanswered, 0 unscored)" in line for line in lines)


@pytest.mark.parametrize("fmt", FORMATS[1:])
def test_generate_and_judge_print_their_calls_in_the_format(tmp_path: Path, fmt: str) -> None:
    """generate (--table-format: its --format is the benchmark's) and judge (--format) print
    what they did as the calls table in the format, their progress lines on stderr."""
    run = tmp_path / "run"
    with OpenAIServer(deterministic) as server:
        candidate, judge = f"openai:cand@{server.base_url}", f"openai:judge@{server.base_url}"
        made = run_cli(
            "generate", str(bench(tmp_path / "b.jsonl", 4)), "-o", str(run), "-m", candidate,
            "--table-format", fmt,
        )  # fmt: skip
        judged = run_cli("judge", str(run), "--judge", judge, "--format", fmt)
    for result, model, role in ((made, candidate, "candidate"), (judged, judge, "judge")):
        assert result.returncode == 0, result.stderr
        shown = parsed(fmt, result.stdout)
        if fmt == "json":
            assert [(c["model"], c["role"], c["calls"]) for c in shown["calls"]] == [
                (model, role, 4)
            ]
        elif fmt == "csv":
            cells = {row["column"]: row["value"] for row in shown if row["table"] == CALLS_TITLE}
            assert cells["calls"] == "4"
        assert "model calls" in result.stderr
    assert "Run stored in" in judged.stderr and "Run stored in" not in judged.stdout


@pytest.mark.parametrize("fmt", FORMATS[1:])
def test_run_prints_its_scores_and_calls_in_the_table_format(tmp_path: Path, fmt: str) -> None:
    """run (--table-format: its --format is the benchmark's): the scores' tables and the calls
    table in the format; JSON: the stages, the scores and the calls."""
    with OpenAIServer(deterministic) as server:
        candidate, judge = f"openai:cand@{server.base_url}", f"openai:judge@{server.base_url}"
        result = run_cli(
            "run", str(bench(tmp_path / "b.jsonl", 4)), "-o", str(tmp_path / "run"),
            "-m", candidate, "--judge", judge, "--table-format", fmt,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    shown = parsed(fmt, result.stdout)
    if fmt == "json":
        assert [row["model"] for row in shown["scores"]["models"]] == [candidate]
        assert {(c["model"], c["role"]) for c in shown["calls"]} == {
            (candidate, "candidate"),
            (judge, "judge"),
        }
    elif fmt == "csv":
        assert {row["row"] for row in shown} >= {candidate, f"{judge} (judge)"}
    else:
        assert any(row[1] == candidate for table in shown for row in table)
    assert "Run stored in" in result.stderr
