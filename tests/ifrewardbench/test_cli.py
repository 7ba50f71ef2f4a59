"""`checkbench meta` and `checkbench agreement` as a user runs them: predictions in a file, judges
run through the run store (scripted server and embedded model), leaderboards, human agreement.

TINY, the file the judges run on (gold labels; edges chosen > rejected):
  1 Single_Turn, 2 constraints: r0 [1,1]  r1 [0,1]  r2 [1,0]; edges 0>1 0>2
  2 System_Prompt, 2 constraints: r0 [1,1]  r1 [0,1]; edge 0>1
A judge that says yes to every constraint and always picks reply A:
  1: TP 4, FP 2 -> Pos F1 8/10, Neg F1 0; every response scores 1: edges all ties -> 0, 0
  2: TP 3, FP 1 -> Pos F1 6/7, Neg F1 0; ties again
  labels: 7 of 10 agree, kappa 0 (the judge uses one class); pairs: 3 + 1, all biased to A.

examples/ifrewardbench-mini.json (its own pred_labels; gold/pred TP FP TN per instruction):
  1 Single_Turn  TP 6 FP 2 TN 1: Pos 12/14, Neg 2/4; scores 1, 1, 2/3: C2 T1
  2 Single_Turn  TP 6 FP 1 TN 2: Pos 12/13, Neg 4/5; scores 1, 2/3, 2/3: C2 T1
  3 Multi_Turn   TP 4 FP 1 FN 1: Pos 8/10, Neg 0; scores 2/3, 1: D1
  4 System_Prompt TP 6 FP 2 TN 1: Pos 12/14, Neg 2/4; scores 1, 1, 2/3: C2 T1
  C2 T1 gives accuracy 2/3 and tau_b 2/sqrt(6).
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import ROOT, run_cli
from tests.ifrewardbench.test_dataset import RECORDS, TAU_R1, TAU_R3, _record, write_jsonl

MINI = ROOT / "examples" / "ifrewardbench-mini.json"


def _tiny_records() -> list[dict[str, Any]]:
    sky = _record(
        1,
        "Single_Turn",
        "u",
        [(["Format"], ["Single"]), (["Content"], ["And"])],
        [[1, 1], [0, 1], [1, 0]],
        [[1, 1], [0, 1], [1, 0]],
        [(0, 1), (0, 2)],
    )
    greet = _record(
        2,
        "System_Prompt",
        "su",
        [(["Linguistic"], ["Single"]), (["Content"], ["And"])],
        [[1, 1], [0, 1]],
        [[1, 1], [0, 1]],
        [(0, 1)],
    )
    texts = {
        1: (
            ["Name the colour of a clear daytime sky in one word."],
            ["Is the reply a single word?", "Does the reply name the colour blue?"],
            ["Blue.", "The sky is blue.", "Green."],
        ),
        2: (
            ["Always answer in French.", "Say good morning to me."],
            ["Is the reply in French?", "Does the reply say good morning?"],
            ["Bonjour !", "Good morning!"],
        ),
    }
    for record in (sky, greet):
        messages, checklist, replies = texts[record["id"]]
        for message, text in zip(record["messages"], messages, strict=True):
            message["content"] = text
        record["checklist"] = checklist
        for response, text in zip(record["responses"], replies, strict=True):
            response["response"] = text
            del response["pred_labels"]
    return [sky, greet]


def tiny_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "tiny.jsonl", _tiny_records())


def _json(*args: str) -> Any:
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _calls(run_dir: Path) -> int:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]


def _records(run_dir: Path, kind: str) -> dict[str, Any]:
    """Stage records of a kind kept in the run (what the HTML report reads)."""
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        rows = db.execute("SELECT key, body FROM records WHERE kind = ?", (kind,))
        return {key: json.loads(body) for key, body in rows}


# ------------------------------------------------------------- predictions carried by a file


def test_predictions_in_a_file_reproduce_the_worked_values(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "small.jsonl", RECORDS)
    report = _json("meta", str(path))
    overall = report["overall"]
    assert overall["positive_f1"]["value"] == pytest.approx((0.375 + 0.4 + 10 / 12) / 3)
    assert overall["negative_f1"]["value"] == pytest.approx((0.25 + 1.0 + 4 / 6) / 3)
    assert overall["accuracy"]["value"] == pytest.approx((1 / 3 + 1 / 3 + 2 / 3) / 3)
    tau = ((TAU_R1 - 1) / 2 + TAU_R3 + 1 / 3) / 3
    assert overall["kendall_tau_b"]["value"] == pytest.approx(tau)
    assert (overall["positive_f1"]["n"], overall["accuracy"]["n"]) == (5, 4)
    for stat in ("positive_f1", "negative_f1", "accuracy", "kendall_tau_b"):
        assert overall[stat]["low"] <= overall[stat]["value"] <= overall[stat]["high"]
    assert list(report["by_instruction_type"]) == ["Multi_Turn", "Single_Turn", "System_Prompt"]
    assert list(report["by_category"]) == ["Content", "Format", "Numerical", "Style"]
    assert list(report["by_turns"]) == ["1", "2", "3"]
    assert report["settings"]["ranking"] == "labels" and report["pairwise"] is None
    assert (report["unscored"]["labels"], report["agreement"]["n"]) == (1, 27)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.jsonl"]  # no run without --judge

    table = run_cli("meta", str(path))
    assert table.returncode == 0, table.stderr
    for text in ("Overall", "Single_Turn", "By constraint category", f"{tau:.3f}", "1 of 27"):
        assert text in table.stdout


def test_scores_in_a_file_rank_the_responses(tmp_path: Path) -> None:
    record = json.loads(json.dumps(RECORDS[0]))
    for response, score in zip(record["responses"], [0.2, 0.9, None], strict=True):
        response["pred_score"] = score
    path = write_jsonl(tmp_path / "scored.jsonl", [record])
    by_score = _json("meta", str(path))
    # 0>1 discordant (.2 < .9); 0>2 and 1>2 have an endpoint without a score: ties
    assert by_score["settings"]["ranking"] == "score"
    assert by_score["overall"]["kendall_tau_b"]["value"] == pytest.approx(-1 / math.sqrt(3))
    by_labels = _json("meta", str(path), "--ranking", "labels")
    assert by_labels["overall"]["accuracy"]["value"] == pytest.approx(2 / 3)


def test_the_shipped_example(tmp_path: Path) -> None:
    report = _json("meta", str(MINI))
    overall, tau = report["overall"], 2 / math.sqrt(6)
    single = (12 / 14 + 12 / 13) / 2
    assert overall["positive_f1"]["value"] == pytest.approx((single + 8 / 10 + 12 / 14) / 3)
    assert overall["negative_f1"]["value"] == pytest.approx(((2 / 4 + 4 / 5) / 2 + 0 + 2 / 4) / 3)
    assert overall["accuracy"]["value"] == pytest.approx((2 / 3 + 0 + 2 / 3) / 3)
    assert overall["kendall_tau_b"]["value"] == pytest.approx((tau - 1 + tau) / 3)
    assert report["by_instruction_type"]["Multi_Turn"]["kendall_tau_b"]["value"] == -1.0


def _broken(tmp_path: Path) -> Path:
    records = json.loads(json.dumps(RECORDS))
    records[2]["responses"][1]["labels"] = [1]
    return write_jsonl(tmp_path / "broken.jsonl", records)


@pytest.mark.parametrize("judge", [(), ("--judge", "local")], ids=["file", "judge"])
def test_a_broken_file_is_one_line_and_exit_2_with_nothing_written(
    tmp_path: Path, judge: tuple[str, ...]
) -> None:
    path = _broken(tmp_path)
    result = run_cli("ifrewardbench", "run", str(path), *judge, "--json")
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}:3: field 'responses.1.labels': ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.jsonl"]


def test_unusable_requests_are_clear_errors(tmp_path: Path) -> None:
    records = json.loads(json.dumps(RECORDS))
    for record in records:
        for response in record["responses"]:
            del response["pred_labels"]
    bare = write_jsonl(tmp_path / "bare.jsonl", records)
    result = run_cli("meta", str(bare))
    assert result.returncode == 2 and "pass --judge MODEL" in result.stderr

    unknown = run_cli("meta", str(bare), "--judge", "gpt-4o")
    assert unknown.returncode == 2 and "unknown model 'gpt-4o'" in unknown.stderr
    twice = run_cli("meta", str(bare), "--judge", "local", "--judge", "local")
    assert twice.returncode == 2 and "given twice" in twice.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.jsonl"]


# ---------------------------------------------------------- judges on a scripted server

ALWAYS_YES_AND_A = json.dumps(
    {
        "0": {"reason": "met", "verdict": "yes"},
        "1": {"reason": "met", "verdict": "yes"},
        "reason": "A is first",
        "winner": "A",
    }
)
"""One canned answer both judges can read: every check passes; reply A wins every pair."""


@pytest.fixture()
def scripted_run(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A two-judge leaderboard on TINY (both paradigms); rerunning makes no new requests."""
    path, run_dir = tiny_file(tmp_path), tmp_path / "run"
    with OpenAIServer(Reply(body=completion(ALWAYS_YES_AND_A))) as server:
        args = ["meta", str(path), "--judge", "openai:alpha", "--judge", "openai:beta"]
        args += ["--paradigm", "both", "--base-url", server.base_url, "--out", str(run_dir)]
        shown = _json(*args)
        board = shown["results"]  # one result per judge, and the calls the command made
        assert {(row["model"], row["role"]) for row in shown["calls"]} == {
            ("openai:alpha", "judge"),
            ("openai:beta", "judge"),
        }
        sent = len(server.requests)
        assert sent == 2 * (5 + 8)  # per judge: 5 responses verified, 4 pairs in both orders
        table = run_cli(*args)
        assert table.returncode == 0, table.stderr
        assert len(server.requests) == sent
    assert "Judge leaderboard" in table.stdout and "0 model calls" in table.stdout
    return run_dir, board


def test_a_leaderboard_of_scripted_judges(scripted_run: tuple[Path, list[dict[str, Any]]]) -> None:
    run_dir, board = scripted_run
    assert [row["judge"] for row in board] == ["openai:alpha", "openai:beta"]
    kept = _records(run_dir, "meta_report")
    assert kept == {row["model"]: row["report"] for row in board}
    for row in board:
        report, pairwise = row["report"], row["report"]["pairwise"]
        overall = report["overall"]
        assert overall["positive_f1"]["value"] == pytest.approx((8 / 10 + 6 / 7) / 2)
        assert overall["negative_f1"]["value"] == 0.0
        assert (overall["accuracy"]["value"], overall["kendall_tau_b"]["value"]) == (0.0, 0.0)
        assert report["agreement"]["agreement"]["value"] == pytest.approx(0.7)
        assert report["agreement"]["kappa"]["value"] == pytest.approx(0.0)
        assert pairwise["position"]["pairs"] == 4
        assert pairwise["position"]["position_bias_rate"] == 1.0
        assert pairwise["edges"]["overall"]["accuracy"]["value"] == 0.0
        assert pairwise["edges"]["total_edges"] == 3
        assert row["usage"] == {
            "calls": 13,
            "failed": 0,
            "prompt_tokens": 13 * 7,
            "completion_tokens": 13 * 3,
        }
        assert row["unscored"] == 0 and row["paradigm"] == "both"


HUMAN = [
    {"item_id": 1, "model": "0", "check_id": "0", "passed": True},
    {"item_id": "1", "model": "1", "check_id": "0", "passed": False},
    {"item_id": "1", "model": "2", "check_id": "1", "passed": False},
    {"item_id": "2", "model": "1", "check_id": "0", "passed": False},
    {"item_id": "2", "model": "0", "check_id": "1", "passed": None, "annotator": "x"},
]


def test_judge_vs_human_agreement(
    scripted_run: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    run_dir, _ = scripted_run
    human = write_jsonl(tmp_path / "human.jsonl", HUMAN)
    rows = _json("agreement", str(run_dir), "--human", str(human))
    assert [row["judge"] for row in rows] == ["openai:alpha", "openai:beta"]
    row = rows[0]
    # 4 human labels (1 undecided); the judge said yes to all: only the first agrees
    assert (row["n"], row["gold_missing"], row["only_reference"], row["only_judge"]) == (4, 1, 0, 5)
    assert row["agreement"]["value"] == pytest.approx(1 / 4)
    assert row["kappa"]["value"] == pytest.approx(0.0)
    assert row["positive_f1"]["value"] == pytest.approx(2 / 5)
    assert row["negative_f1"]["value"] == 0.0
    [one] = _json("agreement", str(run_dir), "--human", str(human), "--judge-id", "openai:beta")
    assert one["judge"] == "openai:beta"
    assert _records(run_dir, "judge_agreement") == {r["judge"]: r for r in rows}
    table = run_cli("agreement", str(run_dir), "--human", str(human))
    assert "Judge vs human" in table.stdout and "0.250" in table.stdout


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ({"item_id": "9", "model": "0", "check_id": "0", "passed": True}, "item_id", "no item"),
        ({"item_id": "1", "model": "7", "check_id": "0", "passed": True}, "model", "no response"),
        ({"item_id": "1", "model": "0", "check_id": "5", "passed": True}, "check_id", "no check"),
        (HUMAN[0], "check_id", "first at line 1"),
        ({"item_id": "1", "model": "0", "check_id": "1"}, "passed", "Field required"),
    ],
)
def test_a_bad_human_file_is_located(
    scripted_run: tuple[Path, list[dict[str, Any]]],
    tmp_path: Path,
    line: dict[str, Any],
    field: str,
    message: str,
) -> None:
    run_dir, _ = scripted_run
    human = write_jsonl(tmp_path / "human.jsonl", [HUMAN[0], line])
    result = run_cli("agreement", str(run_dir), "--human", str(human))
    assert result.returncode == 2
    [error] = result.stderr.strip().splitlines()
    assert error.startswith(f"error: {human}:2: field '{field}': ") and message in error


def test_agreement_needs_a_judge_of_the_run(
    scripted_run: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    run_dir, _ = scripted_run
    human = write_jsonl(tmp_path / "human.jsonl", HUMAN)
    result = run_cli("agreement", str(run_dir), "--human", str(human), "--judge-id", "nobody")
    assert result.returncode == 2 and "no verdicts by judge 'nobody'" in result.stderr


# ------------------------------------------------------------------- the embedded model


@pytest.mark.slow
def test_meta_with_the_embedded_model_resumes_for_free(tmp_path: Path) -> None:
    path, run_dir = tiny_file(tmp_path), tmp_path / "run"
    args = ("meta", str(path), "--judge", "local", "--paradigm", "both", "--out", str(run_dir))
    first = run_cli(*args, "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["agreement"]["n"] == report["unscored"]["total_labels"] == 10
    assert report["unscored"]["total_edges"] == 3
    pairwise = report["pairwise"]
    assert pairwise["judgments"] == 8 and pairwise["method"] == "bradley_terry"
    position = pairwise["position"]
    assert position["pairs"] + position["single_order"] == 4
    for stat in ("positive_f1", "negative_f1", "accuracy"):
        value = report["overall"][stat]["value"]
        assert value is None or 0.0 <= value <= 1.0
    calls = _calls(run_dir)

    again = run_cli(*args, "--json")
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    assert report.pop("calls") and resumed.pop("calls") == []  # the rerun made no call
    assert resumed == report
    assert _calls(run_dir) == calls

    logprob = _json(
        "meta", str(path), "--judge", "local", "--mode", "logprob", "--out", str(run_dir)
    )
    assert logprob["settings"]["ranking"] == "score" and logprob["pairwise"] is None
    assert logprob["agreement"]["n"] == 10
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        p_yes = [
            json.loads(body).get("p_yes")
            for (body,) in db.execute("SELECT body FROM verdicts WHERE judge LIKE '%#logprob'")
        ]
    assert len(p_yes) == 10 and all(p is None or 0.0 <= p <= 1.0 for p in p_yes)
