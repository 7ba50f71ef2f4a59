"""Re-scoring published FB-Bench judgments the way the authors scored them.

First on hand-built records (the judge's key problems the 27 released files have: rewording,
reordering, fewer entries than checks, an entry for no check), then on the authors' released
files beside the project (skipped where absent): one import of the whole folder, the headline
table and every breakdown cell of their analysis, from the verdicts and from the stored scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkbench.fbbench.judgments import (
    JudgmentImport,
    load_fbbench_judgment_dir,
    load_fbbench_judgments,
)
from checkbench.fbbench.scoring import FBBenchLeaderboard, fbbench_leaderboard
from checkbench.store import RunStore
from tests.conftest import ROOT, run_cli
from tests.fbbench.test_data import ec_sample, judged, rm_sample, write_lines

DATA = ROOT.parent / "shared" / "data" / "fb-bench"
JUDGMENTS = DATA / "model_judgment" / "gpt-4o-2024-08-06"
ANALYSIS = DATA / "model_analysis-6-models.json"
needs_data = pytest.mark.skipif(
    not (JUDGMENTS.is_dir() and ANALYSIS.is_file()), reason="FB-Bench released files absent"
)
B = 50
"""Bootstrap draws: the point estimates compared here do not depend on them."""


def _entry(result: str, weight: float | None) -> dict[str, Any]:
    return {"评判理由": "理由", "评判结果": result, "weight": weight}


def _authors_score(judgement: dict[str, dict[str, Any]]) -> float:
    """The published record score, recomputed here as the authors' released code computes it
    (the judge's entries in order, with the weights it echoed)."""
    total = 0.0
    for entry in judgement.values():
        if entry["评判结果"] == "是":
            if not entry["weight"]:
                return 1.0
            total += entry["weight"]
    return total


def _record(sample: dict[str, Any], judgement: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return judged(
        sample,
        ["是"] * len(sample["checklist"]),
        judgement=judgement,
        score=_authors_score(judgement),
    )


def test_rescoring_from_matched_entries_gives_the_authors_scores(tmp_path: Path) -> None:
    reworded = ec_sample(
        "题一", checklist=[["是否给出正确答案2", 0.5], ["是否承认错误", 0.2], ["是否道歉", 0.3]]
    )
    short = ec_sample("题二", checklist=[["是否给出2", 0.6], ["是否解释原因", 0.4]])
    maintained = rm_sample("题三", checklist=["是否坚持原答案", "是否解释了反馈的错误"])
    path = write_lines(
        tmp_path / "m.jsonl",
        [
            _record(  # reordered, one key misspelt
                reworded,
                {
                    "是否道歉": _entry("是", 0.3),
                    "是否给出正确答按2": _entry("是", 0.5),
                    "是否承认错误": _entry("否", 0.2),
                },
            ),
            _record(short, {"是否解释原因": _entry("是", 0.4)}),  # fewer entries than checks
            _record(
                maintained,
                {"是否坚持原答案": _entry("否", None), "是否解释了反馈的错误": _entry("是", None)},
            ),
        ],
    )
    loaded = load_fbbench_judgments(path)
    board = fbbench_leaderboard(*loaded, b=B)
    assert board.score_mismatches == 0
    [row] = board.rows
    assert row.unjudged_checks == 1  # shown, and counted as not met like the authors did
    assert (row.error_correction, row.response_maintenance) == (60.0, 100.0)


def test_text_tables_show_the_breakdown_cells_and_the_counts(tmp_path: Path) -> None:
    from checkbench.fbbench.cli import console, print_breakdowns, print_leaderboard

    short = ec_sample("题一", checklist=[["是否给出2", 0.6], ["是否解释原因", 0.4]])
    other = ec_sample("题二", task_type="Coding", error_type=["Logical Error"])
    kept = rm_sample("题三")
    records = [
        _record(short, {"是否解释原因": _entry("是", 0.4)}),
        _record(other, {"回答是否给出2": _entry("是", 0.7), "回答是否承认错误": _entry("否", 0.3)}),
        _record(kept, {text: _entry("是", None) for text in kept["checklist"]}),
    ]
    board = fbbench_leaderboard(*load_fbbench_judgments(write_lines(tmp_path / "m.jsonl", records)))
    with console.capture() as captured:
        print_leaderboard(board)
        print_breakdowns(board, ("task", "deficiency"))
    text = captured.get()
    assert "1 check without a judgment entry counted as not met" in text
    assert "stored scores differ from the verdicts' on 0 records" in text
    [cells] = board.breakdowns.values()
    for name in ("EC", "RM", "all"):
        assert f"{'all items' if name == 'all' else name}: score by task" in text
        for cell in cells["task"][name].values():
            assert f"{cell.score:.2f}" in text and f"n={cell.n}" in text
    assert "EC: score by deficiency" in text and "all items: score by deficiency" not in text


def test_an_entry_for_no_check_makes_a_mismatch_and_stays_visible(tmp_path: Path) -> None:
    sample = ec_sample(checklist=[["是否给出2", 0.6], ["是否解释原因", 0.4]])
    judgement = {
        "是否给出2": _entry("是", 0.6),
        "是否解释原因": _entry("否", 0.4),
        "另外加的一条": _entry("是", 0.4),
    }
    loaded = load_fbbench_judgments(write_lines(tmp_path / "m.jsonl", [_record(sample, judgement)]))
    assert fbbench_leaderboard(*loaded, b=B).score_mismatches == 1  # stored 1.0, verdicts 0.6
    assert loaded.summary.unmatched == 1
    assert "另外加的一条" in loaded.responses[0].meta["fb_bench_record"]["unmatched"]


# ---------------------------------------------------------------- the released files


@pytest.fixture(scope="module")
def released() -> JudgmentImport:
    return load_fbbench_judgment_dir(JUDGMENTS)


@pytest.fixture(scope="module")
def board(released: JudgmentImport) -> FBBenchLeaderboard:
    """The default board: scores from the verdicts, failed judgments counted as 0."""
    return fbbench_leaderboard(*released, b=B)


@pytest.fixture(scope="module")
def analysis() -> dict[str, Any]:
    return json.loads(ANALYSIS.read_text(encoding="utf-8"))


def _headline(board: FBBenchLeaderboard) -> dict[str, tuple[float | None, ...]]:
    return {r.model: (r.error_correction, r.response_maintenance, r.overall) for r in board.rows}


def _published_headline(analysis: dict[str, Any]) -> dict[str, tuple[float | None, ...]]:
    return {
        row["Model"]: (row["Error Correction"], row["Response Maintenance"], row["Overall"])
        for row in analysis["overall_score"]
    }


@needs_data
def test_one_import_of_the_folder_reconciles_the_two_dataset_versions(
    released: JudgmentImport,
) -> None:
    summary = released.summary
    files = sorted(JUDGMENTS.glob("*.jsonl"))
    assert (summary.files, summary.models, summary.samples) == (len(files), len(files), 591)
    assert len(released.items) == 591 and len(released.responses) == 591 * len(files)
    assert set(summary.whitespace) == {
        "origin_first_response",
        "reference_second_response",
        "feedback",
    }
    assert summary.wording == {"checklist": 1, "reference_second_response": 1}
    reworded = [
        r
        for r in released.responses
        if "checklist" in r.meta["fb_bench_record"].get("versions", {})
    ]
    assert reworded and all(
        len(r.meta["fb_bench_record"]["versions"]["checklist"]) == 3 for r in reworded
    )
    assert summary.failed == 1 and summary.unjudged == 0 and summary.unmatched == 0
    assert summary.matched["closest"] + summary.matched["position"] > 0


@needs_data
def test_headline_reproduces_the_published_table_from_verdicts_and_stored_scores(
    released: JudgmentImport, board: FBBenchLeaderboard, analysis: dict[str, Any]
) -> None:
    assert _headline(board) == _published_headline(analysis)
    assert board.score_mismatches == 0
    stored = fbbench_leaderboard(*released, source="stored", b=B)
    assert _headline(stored) == _published_headline(analysis)


def _published_cells(analysis: dict[str, Any], model: str) -> dict[tuple[str, str, str], float]:
    """(facet, slice, value) -> the published cell of the authors' analysis tables."""
    cells = {}
    for row in analysis["per_task_score"][model]:
        for name, column in (
            ("EC", "correct_avg_score"),
            ("RM", "antisyco_avg_score"),
            ("all", "all_avg_score"),
        ):
            cells["task", name, row["task_type"]] = row[column]
    for row in analysis["per_error_score"][model]:
        cells["deficiency", "EC", row["error_type"]] = row["correct_avg_score"]
    for table, name, column in (
        ("per_feedback_score_correct", "EC", "error_correct_score"),
        ("per_feedback_score_antisyco", "RM", "response_maintenance_score"),
    ):
        for row in analysis[table][model]:
            cells["feedback_type", name, row["feedback_type"]] = row[column]
    return cells


@needs_data
def test_breakdowns_reproduce_the_published_analysis_cell_by_cell(
    board: FBBenchLeaderboard, analysis: dict[str, Any]
) -> None:
    compared = 0
    for model, breakdowns in board.breakdowns.items():
        for (facet, name, value), published in _published_cells(analysis, model).items():
            assert breakdowns[facet][name][value].score == published, (model, facet, name, value)
            compared += 1
    assert compared == len(board.rows) * (8 * 3 + 5 + 6 + 4)


@needs_data
def test_excluding_the_failed_judgment_changes_only_its_model(
    released: JudgmentImport, board: FBBenchLeaderboard, analysis: dict[str, Any]
) -> None:
    zero = {row.model: row for row in board.rows}
    excluded = {
        row.model: row for row in fbbench_leaderboard(*released, policy="exclude", b=B).rows
    }
    changed = {model for model in zero if zero[model] != excluded[model]}
    [model] = [model for model, row in zero.items() if row.unscored]
    assert changed == {model}
    assert excluded[model].n == zero[model].n - 1
    assert excluded[model].overall > _published_headline(analysis)[model][2]  # type: ignore[operator]


@needs_data
def test_importing_file_by_file_into_one_run_gives_the_same_board(
    board: FBBenchLeaderboard, tmp_path: Path
) -> None:
    first, second = (
        JUDGMENTS / f"{name}.jsonl" for name in ("DeepSeek-V3", "Qwen2.5-72B-Instruct")
    )
    with RunStore(tmp_path / "run") as store:
        for path in (first, second):
            loaded = load_fbbench_judgments(path, known=store.items())
            store.add_items(loaded.items)
            with store.transaction():
                for response in loaded.responses:
                    store.put_response(response)
            store.put_verdicts(loaded.verdicts)
        run = fbbench_leaderboard(store.items(), store.responses(), store.verdicts(), b=B)
    assert {row.model for row in run.rows} == {"DeepSeek-V3", "Qwen2.5-72B-Instruct"}
    assert [row for row in board.rows if row.model in _headline(run)] == run.rows
    assert run.breakdowns == {model: board.breakdowns[model] for model in run.breakdowns}
    assert run.score_mismatches == 0


@needs_data
def test_the_import_command_says_what_differed_and_the_json_board_carries_everything(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    imported = run_cli("import", "fb-bench-judgments", str(JUDGMENTS), "--run", str(run_dir))
    assert imported.returncode == 0, imported.stderr
    lines = " ".join(imported.stdout.split())
    assert "imported 3546 responses of 591 items (6 models, 6 files)" in lines
    assert "69 samples differ between files" in lines
    assert "1 failed judgment (unscored)" in lines
    again = run_cli("import", "fb-bench-judgments", str(JUDGMENTS), "--run", str(run_dir))
    assert again.returncode == 0, again.stderr
    board = json.loads(run_cli("leaderboard", str(run_dir), "--json").stdout)
    assert board["score_mismatches"] == 0
    published = json.loads(ANALYSIS.read_text(encoding="utf-8"))
    overall = {row["Model"]: row["Overall"] for row in published["overall_score"]}
    assert {row["model"]: row["overall"] for row in board["rows"]} == overall
    deepseek = board["breakdowns"]["DeepSeek-V3"]
    assert deepseek["feedback_type"]["EC"]["Hinting Guidance"]["score"] == 84.20
    assert deepseek["task"]["all"]["Coding"]["score"] == 81.00


def test_a_breakdown_cell_on_a_decimal_tie_prints_as_the_authors_table() -> None:
    """Qwen2.5-7B-Instruct's EC Text Extraction cell: an exact mean of 61.875, published 61.88."""
    import numpy as np

    from checkbench.fbbench.means import Layout, fbbench_breakdowns
    from checkbench.scoring import ItemScores
    from tests.stats.test_exact_mean import TIE

    tags = {"scenario": ["EC"], "task": ["Text Extraction"]}
    layout = Layout.of((f"i{n}", tags) for n in range(len(TIE)))
    scores = ItemScores(np.arange(len(TIE)), np.array(TIE))
    cells = fbbench_breakdowns(layout, scores, "zero", b=B)
    assert cells["task"]["EC"]["Text Extraction"].score == 61.88
