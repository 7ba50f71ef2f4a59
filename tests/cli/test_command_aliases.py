"""Old command names work for one more version: the new command runs, after one note on
stderr naming the new name (`checkbench build filter` is covered beside the filter's tests).
Old names: meta, import fb-bench-judgments, taxonomy, build [from-logs], score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.cli import renamed
from checkbench.registry import Alias
from tests.conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _note(old: str, new: str) -> list[str]:
    return [
        f"note: `checkbench {old}` is now `checkbench {new}`; the old name goes in the next version"
    ]


def test_meta_is_ifrewardbench_run() -> None:
    file = str(EXAMPLES / "ifrewardbench-mini.json")
    old = run_cli("meta", file, "--json")
    new = run_cli("ifrewardbench", "run", file, "--json")
    assert old.returncode == new.returncode == 0, old.stderr
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert old.stderr.splitlines() == _note("meta", "ifrewardbench run")
    assert new.stderr == ""


def test_import_fb_bench_judgments_is_fbbench_import_with_out_for_run(tmp_path: Path) -> None:
    judgments = str(EXAMPLES / "fb-bench-judgments-mini")
    old = run_cli("import", "fb-bench-judgments", judgments, "--run", str(tmp_path / "old"))
    new = run_cli("fbbench", "import", judgments, "--out", str(tmp_path / "new"))
    assert old.returncode == new.returncode == 0, old.stderr
    assert old.stdout.replace("old", "new") == new.stdout
    assert old.stderr.splitlines() == _note("import fb-bench-judgments", "fbbench import")
    boards = [run_cli("leaderboard", str(tmp_path / name), "--json") for name in ("old", "new")]
    assert json.loads(boards[0].stdout) == json.loads(boards[1].stdout)


def test_taxonomy_is_scan() -> None:
    taxonomy = str(EXAMPLES / "taxonomy-mini.json")
    old = run_cli("taxonomy", "show", taxonomy, "--json")
    new = run_cli("scan", "show", taxonomy, "--json")
    assert old.returncode == new.returncode == 0, old.stderr
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert old.stderr.splitlines() == _note("taxonomy", "scan")
    assert new.stderr == ""


@pytest.mark.parametrize("old", [["build"], ["build", "from-logs"]])
def test_build_and_build_from_logs_are_convbench_build(old: list[str]) -> None:
    """Without --out the build stops at its first check, naming the same option either way."""
    logs = [str(EXAMPLES / "logs-mini.jsonl"), "--domain", "coding"]
    before, after = run_cli(*old, *logs), run_cli("convbench", "build", *logs)
    assert before.returncode == after.returncode == 2
    assert before.stderr.splitlines() == [
        *_note(" ".join(old), "convbench build"),
        *after.stderr.splitlines(),
    ]
    assert "--out is required" in after.stderr


def test_score_is_convbench_score(tmp_path: Path) -> None:
    run = str(tmp_path / "no-run")
    old, new = run_cli("score", run), run_cli("convbench", "score", run)
    assert old.returncode == new.returncode == 2
    assert old.stderr.splitlines() == [*_note("score", "convbench score"), *new.stderr.splitlines()]
    assert new.stderr.startswith("error: ") and len(new.stderr.splitlines()) == 1


ALIASES = [
    Alias("build", "convbench build"),
    Alias("build filter", "fbbench filter"),
    Alias("import fb-bench-judgments", "fbbench import", {"--run": "--out"}),
]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["build", "filter", "b.jsonl", "--run", "r"],
            ["fbbench", "filter", "b.jsonl", "--run", "r"],
        ),
        (["build", "logs.jsonl"], ["convbench", "build", "logs.jsonl"]),
        (
            ["import", "fb-bench-judgments", "jd", "--run", "r"],
            ["fbbench", "import", "jd", "--out", "r"],
        ),
        (["run", "--run", "b.jsonl"], ["run", "--run", "b.jsonl"]),
        (["--help"], ["--help"]),
    ],
)
def test_the_longest_old_name_is_replaced_and_only_its_options(
    args: list[str], expected: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert renamed(args, ALIASES) == expected
    noted = capsys.readouterr().err.splitlines()
    assert len(noted) == (0 if args == expected else 1)
