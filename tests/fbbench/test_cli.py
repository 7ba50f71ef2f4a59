"""FB-Bench from the command line: import published judgments, run end to end, leaderboards."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE, run_cli
from tests.evaluation.test_scoring import published  # noqa: F401  (fixture: hand-built judgment files)


def _board(run_dir: Path, *args: str) -> list[dict]:
    result = run_cli("leaderboard", str(run_dir), "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["rows"]


def test_import_published_judgments_and_rescore(published: Path, tmp_path: Path) -> None:  # noqa: F811
    run_dir = tmp_path / "run"
    result = run_cli("import", "fb-bench-judgments", str(published), "--run", str(run_dir))
    assert result.returncode == 0, result.stderr
    assert "imported 10 responses of 7 items" in result.stdout

    rows = {row["model"]: row for row in _board(run_dir)}
    a = rows["model-a"]
    assert (a["error_correction"], a["response_maintenance"], a["overall"]) == (33.33, 75.0, 50.0)
    assert (a["n"], a["unscored"]) == (7, 1)
    assert list(rows) == ["model-b", "model-a"]

    excluded = {row["model"]: row for row in _board(run_dir, "--unscored", "exclude")}
    assert (excluded["model-a"]["error_correction"], excluded["model-a"]["overall"]) == (50.0, 62.5)
    stored = {row["model"]: row for row in _board(run_dir, "--stored-scores")}
    assert stored["model-b"]["error_correction"] == 45.0

    table = run_cli("leaderboard", str(run_dir))
    assert "model-a" in table.stdout and "33.33" in table.stdout and "deficiency" in table.stdout


def test_leaderboard_of_a_missing_run_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("leaderboard", str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert "not a checkbench run directory" in result.stderr


def _calls(run_dir: Path) -> int:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]


@pytest.mark.slow
def test_run_end_to_end_on_the_embedded_model_then_resume_and_logprob_judge(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = ("run", str(EXAMPLE), "--out", str(run_dir), "--max-tokens", "48")
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert "FB-Bench leaderboard" in first.stdout and "score by task" in first.stdout
    [row] = _board(run_dir)
    assert row["n"] == 8 and row["error_correction_n"] == 4
    for key in ("error_correction", "response_maintenance", "overall"):
        assert row[key] is None or 0.0 <= row[key] <= 100.0
    calls = _calls(run_dir)

    again = run_cli(*args)
    assert again.returncode == 0
    assert again.stdout.count("0 model calls") == 2
    assert _calls(run_dir) == calls

    logprob = run_cli("judge", str(run_dir), "--mode", "logprob")
    assert logprob.returncode == 0, logprob.stderr
    ambiguous = run_cli("leaderboard", str(run_dir))
    assert ambiguous.returncode == 2 and "choose a judge with --judge-id" in ambiguous.stderr
    judge = "local:SmolLM2-135M-Instruct.Q4_1#logprob"
    [lp_row] = _board(run_dir, "--judge-id", judge)
    assert lp_row["n"] == 8
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        p_yes = [
            json.loads(b).get("p_yes")
            for (b,) in db.execute("SELECT body FROM verdicts WHERE judge = ?", (judge,))
        ]
    assert len(p_yes) == 18 and all(p is None or 0.0 <= p <= 1.0 for p in p_yes)


def test_leaderboard_of_a_non_fbbench_run_points_to_score(tmp_path: Path) -> None:
    from checkbench.schema import Check, Item, Message, Response, Verdict
    from checkbench.store import RunStore

    item = Item(
        id="q1",
        messages=[Message(role="user", content="hi")],
        checklist=[Check(id="c1", text="greets")],
    )
    with RunStore(tmp_path / "run") as store:
        store.add_items([item])
        store.put_response(Response(item_id="q1", model="m", content="hello"))
        store.put_verdicts(
            [Verdict(item_id="q1", model="m", judge="j", check_id="c1", passed=True)]
        )
    result = run_cli("leaderboard", str(tmp_path / "run"))
    assert result.returncode == 2
    assert "checkbench convbench score" in result.stderr and "Traceback" not in result.stderr
    scored = run_cli("convbench", "score", str(tmp_path / "run"), "--json")
    assert scored.returncode == 0, scored.stderr
