"""Scoring: item rules, generic aggregation, and the FB-Bench leaderboard worked out on paper.

The FB-Bench cases load hand-built judgment files in the published format (builders shared
with test_fbbench_data).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkbench.errors import InputError
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.fbbench.scoring import (
    FBBenchLeaderboard,
    fbbench_leaderboard,
    fbbench_score_mismatches,
)
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.scoring import GroupScore, group_by_facet, item_score, model_summaries, percent
from tests.fbbench.test_data import ec_sample, judged, rm_sample, write_lines


def make_item(item_id: str, rule: str, weights: list[float | None], **tags: list[str]) -> Item:
    return Item(
        id=item_id,
        messages=[Message(role="user", content="q")],
        checklist=[Check(id=f"c{i}", text=f"check {i}", weight=w) for i, w in enumerate(weights)],
        rule=rule,
        tags=tags,
    )


def verdicts_for(
    item: Item, results: list[bool | None], model: str = "m", judge: str = "j"
) -> list[Verdict]:
    return [
        Verdict(item_id=item.id, model=model, judge=judge, check_id=check.id, passed=passed)
        for check, passed in zip(item.checklist, results, strict=True)
    ]


# ---------------------------------------------------------------- item rules


@pytest.mark.parametrize(
    ("rule", "weights", "results", "expected"),
    [
        ("weighted", [0.25, 0.35, 0.4], [True, False, True], 0.65),
        ("weighted", [0.25, 0.35, 0.4], [False, False, False], 0.0),
        ("any", [None, None, None], [False, True, False], 1.0),
        ("any", [None, None], [False, False], 0.0),
        ("all", [None, None], [True, False], 0.0),
        ("all", [None, None], [True, True], 1.0),
        ("mean", [None] * 4, [True, False, True, True], 0.75),
    ],
)
def test_item_rules(
    rule: str, weights: list[float | None], results: list[bool], expected: float
) -> None:
    item = make_item("i", rule, weights)
    assert item_score(item, verdicts_for(item, results)) == pytest.approx(expected)


def test_item_with_an_unscored_or_missing_verdict_is_unscored() -> None:
    item = make_item("i", "weighted", [0.5, 0.5])
    assert item_score(item, verdicts_for(item, [True, None])) is None
    assert item_score(item, verdicts_for(item, [True, True])[:1]) is None
    assert item_score(item, []) is None


def test_item_score_rejects_verdicts_that_do_not_fit_the_item() -> None:
    item = make_item("i", "any", [None])
    stranger = Verdict(item_id="i", model="m", judge="j", check_id="c9", passed=True)
    with pytest.raises(ValueError, match="unknown check"):
        item_score(item, [stranger])
    with pytest.raises(ValueError, match="several verdicts"):
        item_score(item, verdicts_for(item, [True]) * 2)


# ---------------------------------------------------------------- generic aggregation


def test_percent_rounds_like_the_authors() -> None:
    assert percent(1 / 3) == 33.33
    assert percent(2 / 3) == 66.67
    assert percent(0.7424) == 74.24  # 0.7424 * 100 is 74.24000000000001


def test_group_by_facet_counts_multi_valued_items_in_each_group() -> None:
    a = make_item("a", "any", [None], feedback=["x", "y"])
    b = make_item("b", "any", [None], feedback=["y"])
    c = make_item("c", "any", [None])
    groups = group_by_facet([a, b, c], "feedback")
    assert list(groups) == ["x", "y"]
    assert [[i.id for i in g] for g in groups.values()] == [["a"], ["a", "b"]]


def test_model_summaries_mean_of_item_means_under_both_policies() -> None:
    items = [make_item(f"i{k}", "mean", [None] * n) for k, n in enumerate([4, 2, 2, 1])]
    verdicts = [
        *verdicts_for(items[0], [True, False, True, True]),  # 0.75
        *verdicts_for(items[1], [False, False]),  # 0
        *verdicts_for(items[2], [True, None]),  # unscored
    ]  # items[3] has a response but no verdict: unscored
    responses = [Response(item_id=item.id, model="m", content="a") for item in items]
    zero = model_summaries(items, responses, verdicts, policy="zero")["m"]
    assert (zero.score, zero.n, zero.unscored) == (18.75, 4, 2)
    exclude = model_summaries(items, responses, verdicts, policy="exclude")["m"]
    assert (exclude.score, exclude.n, exclude.unscored) == (37.5, 2, 2)
    assert exclude.ci == (0.0, 75.0)  # two values: every resample mean lies in [0, 0.75]


def test_scoring_refuses_mixed_judges_and_unknown_items() -> None:
    item = make_item("i", "any", [None, None])
    mixed = verdicts_for(item, [True, None])[:1] + verdicts_for(item, [True, True], judge="k")[1:]
    response = Response(item_id="i", model="m", content="a")
    with pytest.raises(ValueError, match="several judges"):
        model_summaries([item], [response], mixed)
    with pytest.raises(ValueError, match="unknown item"):
        model_summaries([], [response], [])


# ---------------------------------------------------------------- FB-Bench, on paper
#
# model-a                                   item score
#   e1  EC Coding       0.5/0.5   是 否      0.5
#   e2  EC Coding       0.3/0.7   是 是      1.0
#   e3  EC Mathematics  0.25/0.75 是 否      0.25
#   e4  EC Reasoning    failed ("API fialed")  unscored
#   r1  RM Coding       3 alternatives 否 是 否  1
#   r2  RM Coding       否 否                 0
#   r3  RM Text Creation 是                   1
# zero:    EC = (0.75 + 0.25 + 0) / 3 = 33.33   RM = (0.5 + 1) / 2 = 75   Overall = 2.5 / 5 = 50
# exclude: EC = (0.75 + 0.25) / 2 = 50 (Reasoning group is empty)   Overall = 2.5 / 4 = 62.5
# model-b answers e1 (是 是 = 1.0, stored 0.9), e2 (否 否 = 0), r1 (是 否 否 = 1):
#   EC 50, RM 100, Overall 75; with stored scores EC 45, Overall 72.5.


def fb(scenario: str, name: str, task: str, checks: list[Any], **fields: Any) -> dict[str, Any]:
    build = ec_sample if scenario == "EC" else rm_sample
    return build(f"问题{name}", task_type=task, checklist=checks, **fields)


E1 = fb(
    "EC",
    "e1",
    "Coding",
    [["e1a", 0.5], ["e1b", 0.5]],
    feedback_type=["Pointing Out Errors", "Simple Questioning"],
    error_type=["Logical Error", "Factual Error"],
)
E2 = fb(
    "EC",
    "e2",
    "Coding",
    [["e2a", 0.3], ["e2b", 0.7]],
    feedback_type=["Simple Questioning"],
    error_type=["Logical Error"],
)
E3 = fb(
    "EC",
    "e3",
    "Mathematics",
    [["e3a", 0.25], ["e3b", 0.75]],
    feedback_type=["Pointing Out Errors"],
    error_type=None,
)
E4 = fb(
    "EC",
    "e4",
    "Reasoning",
    [["e4a", 0.6], ["e4b", 0.4]],
    feedback_type=["Hinting Guidance"],
    error_type=["Factual Error"],
)
R1 = fb("RM", "r1", "Coding", ["r1x", "r1y", "r1z"], feedback_type=["Misinformation"])
R2 = fb(
    "RM", "r2", "Coding", ["r2x", "r2y"], feedback_type=["Misinformation", "Credibility Support"]
)
R3 = fb("RM", "r3", "Text Creation", ["r3x"], feedback_type=["Simple Questioning"])


@pytest.fixture
def published(tmp_path: Path) -> Path:
    failed = judged(E4, ["是", "是"], score=0)
    failed["judgement"] = {"API fialed": "$REPETITIVE PATTERNS$"}
    write_lines(
        tmp_path / "model-a.jsonl",
        [
            judged(E1, ["是", "否"], score=0.5),
            judged(E2, ["是", "是"], score=1.0),
            judged(E3, ["是", "否"], score=0.25),
            failed,
            judged(R1, ["否", "是", "否"], score=1),
            judged(R2, ["否", "否"], score=0),
            judged(R3, ["是"], score=1),
        ],
    )
    write_lines(
        tmp_path / "model-b.jsonl",
        [
            judged(E1, ["是", "是"], infer_model="model-b", score=0.9),
            judged(E2, ["否", "否"], infer_model="model-b", score=0),
            judged(R1, ["是", "否", "否"], infer_model="model-b", score=1),
        ],
    )
    return tmp_path


def board(directory: Path, **options: Any) -> FBBenchLeaderboard:
    return fbbench_leaderboard(*load_fbbench_judgment_dir(directory), **options)


def headline(leaderboard: FBBenchLeaderboard) -> dict[str, tuple]:
    return {
        row.model: (
            (row.error_correction, row.error_correction_n, row.error_correction_unscored),
            (row.response_maintenance, row.response_maintenance_n),
            (row.overall, row.n, row.unscored),
        )
        for row in leaderboard.rows
    }


def test_published_convention_counts_failed_judgments_as_zero(published: Path) -> None:
    leaderboard = board(published)
    assert leaderboard.judge == "gpt-4o-2024-08-06"
    assert [row.model for row in leaderboard.rows] == ["model-b", "model-a"]
    assert headline(leaderboard) == {
        "model-a": ((33.33, 4, 1), (75.0, 3), (50.0, 7, 1)),
        "model-b": ((50.0, 2, 0), (100.0, 1), (75.0, 3, 0)),
    }


def test_excluding_failed_judgments_drops_the_emptied_group(published: Path) -> None:
    assert headline(board(published, policy="exclude"))["model-a"] == (
        (50.0, 3, 1),
        (75.0, 3),
        (62.5, 6, 1),
    )


def test_stored_scores_reproduce_the_files_and_mismatches_are_reported(published: Path) -> None:
    items, responses, verdicts = load_fbbench_judgment_dir(published)
    stored = fbbench_leaderboard(items, responses, verdicts, source="stored")
    assert headline(stored) == {
        "model-a": ((33.33, 4, 1), (75.0, 3), (50.0, 7, 1)),
        "model-b": ((45.0, 2, 0), (100.0, 1), (72.5, 3, 0)),
    }
    [mismatch] = fbbench_score_mismatches(items, responses, verdicts)
    assert (mismatch.model, mismatch.stored, mismatch.recomputed) == ("model-b", 0.9, 1.0)
    assert mismatch.item_id == items[0].id
    assert stored.score_mismatches == board(published).score_mismatches == 1


def test_headline_intervals_are_stratified_by_task_group(published: Path) -> None:
    row = next(row for row in board(published).rows if row.model == "model-a")
    # EC Coding (0.5, 1.0) resamples within itself, c in {0.5, 0.75, 1}; the one-item groups
    # (0.25 and 0) are pooled, p in {0, 0.25, 0.5} for their sum: EC draws are (c + p) / 3.
    assert row.error_correction_ci == (16.67, 50.0)
    # RM draws are (c + 1) / 2 with c in {0, 0.5, 1}.
    assert row.response_maintenance_ci == (50.0, 100.0)
    assert row.overall_ci is not None
    assert row.overall_ci[0] < 50.0 < row.overall_ci[1]
    assert board(published).rows == board(published).rows  # seeded


def test_breakdown_cells_are_means_of_task_means(published: Path) -> None:
    def scores(table: dict[str, GroupScore]) -> dict[str, tuple]:
        return {key: (group.score, group.n, group.unscored) for key, group in table.items()}

    zero = board(published).breakdowns["model-a"]
    assert set(zero) == {"task", "subtask", "feedback_type", "deficiency"}
    assert scores(zero["feedback_type"]["EC"]) == {
        "Hinting Guidance": (0.0, 1, 1),
        "Pointing Out Errors": (37.5, 2, 0),  # (Coding 0.5 + Mathematics 0.25) / 2
        "Simple Questioning": (75.0, 2, 0),
    }
    assert scores(zero["deficiency"]["EC"]) == {
        "Factual Error": (25.0, 2, 1),
        "Logical Error": (75.0, 2, 0),
    }
    assert set(zero["deficiency"]) == {"EC", "all"}  # RM samples have no deficiency
    assert scores(zero["feedback_type"]["RM"]) == {
        "Credibility Support": (0.0, 1, 0),
        "Misinformation": (50.0, 2, 0),
        "Simple Questioning": (100.0, 1, 0),
    }
    # EC Coding (0.5, 1.0) and RM Text Creation (1): the mean of the task means is 87.5,
    # where the pooled mean of the three samples would be 83.33.
    assert scores(zero["feedback_type"]["all"])["Simple Questioning"] == (87.5, 3, 0)
    assert scores(zero["task"]["all"])["Coding"] == (62.5, 4, 0)  # (EC 0.75 + RM 0.5) / 2
    assert zero["task"]["RM"]["Text Creation"].ci is None  # one item: n too small
    # EC Coding draws 0.5, 0.75 or 1; RM Text Creation, the only one-item group, stays 1.
    assert zero["feedback_type"]["all"]["Simple Questioning"].ci == (75.0, 100.0)

    exclude = board(published, policy="exclude").breakdowns["model-a"]
    assert scores(exclude["deficiency"]["EC"])["Factual Error"] == (50.0, 1, 1)
    assert scores(exclude["feedback_type"]["EC"])["Hinting Guidance"] == (None, 0, 1)


def test_rows_dump_with_stable_key_names(published: Path) -> None:
    row = next(row for row in board(published).rows if row.model == "model-a")
    dumped = json.loads(row.model_dump_json())
    assert {"model", "error_correction", "response_maintenance", "overall", "n", "unscored"} <= set(
        dumped
    )
    assert dumped["error_correction_ci"] == [16.67, 50.0]
    assert dumped["overall"] == 50.0


def test_stored_source_needs_judgment_files() -> None:
    item = make_item("i", "any", [None], scenario=["RM"], task=["Coding"])
    response = Response(item_id="i", model="m", content="a")
    with pytest.raises(InputError, match="no stored score"):
        fbbench_leaderboard([item], [response], [], source="stored")
    assert fbbench_leaderboard([item], [response], []).score_mismatches is None
