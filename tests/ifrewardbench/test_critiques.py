"""Predicted labels read from the raw critiques of IF-RewardBench's released judge outputs.

Hand-made critiques exercise each rule of the released metric script (blocks, markers, think
part, pass phrases, padding); the authors' QwQ-32B sample checks the whole path on real data.

The real sample's numbers below were verified independently: by a separate, throw-away
re-typing of the released script's parsing and metrics run on the same file, and by reading
the critiques. Of its 36 responses, one (instruction 485, response 2) closes its last block
with `[检查项8-結束]` (a traditional 結): 8 start markers, 7 end markers, so it gives no
verdicts and its 8 constraints are padded as passes; the other 35 critiques give one verdict
per constraint (261 in all).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkbench.errors import InputError
from checkbench.ifrewardbench.critiques import (
    conclusion_passes,
    critique_labels,
    parse_blocks,
)
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.ifrewardbench.metrics import evaluate
from tests.conftest import ROOT, run_cli
from tests.ifrewardbench.test_dataset import _record, write_jsonl

REAL = ROOT.parent / "shared" / "data" / "if-rewardbench" / "qwq-32b-critiques-5.json"
MET = "[[人工智能助手的回复满足了该要求]]"
NOT_MET = "[[人工智能助手的回复没有满足该要求]]"


def block(n: int, conclusion: str, *, requirement: str = "", analysis: str = "ok") -> str:
    """One assessment block in the released layout."""
    requirement = requirement or f"constraint {n}"
    return (
        f"[检查项{n}-开始]\n要求：{requirement}\n分析：{analysis}\n结论：{conclusion}\n"
        f"[检查项{n}-结束]\n"
    )


def critique(*conclusions: str, think: str = "") -> str:
    body = "\n".join(block(n, c) for n, c in enumerate(conclusions, start=1))
    return (f"<think>\n{think}\n</think>\n\n" if think else "") + "```\n" + body + "```"


# --- the rules, one by one ------------------------------------------------------------------


def test_blocks_are_read_in_order_with_their_fields() -> None:
    text = critique(MET, NOT_MET, think="检查项1：看起来满足。检查项2：不满足。")
    blocks = parse_blocks(text)
    assert blocks is not None
    assert [(b.number, b.requirement, b.analysis, b.passed) for b in blocks] == [
        (1, "constraint 1", "ok", True),
        (2, "constraint 2", "ok", False),
    ]
    labels, counts = critique_labels(text, 2)
    assert labels == [1, 0]
    assert (counts.read, counts.padded, counts.unscored, counts.dropped) == (2, 0, 0, 0)
    assert counts.parsed


@pytest.mark.parametrize(
    ("conclusion", "passed"),
    [
        (MET, True),
        ("人工智能助手的回复满足了该要求。", True),
        ("[[满足该要求]]", True),
        (NOT_MET, False),
        ("满足该要求", False),
        ("[[没有满足该要求]]", False),
        ("", False),
        (f"{MET}</think>{NOT_MET}", False),
        (f"{NOT_MET}</think>\n{MET}", True),
        (f"a</think>{MET}</think>没有", False),
    ],
)
def test_pass_phrases_and_the_think_part(conclusion: str, passed: bool) -> None:
    assert conclusion_passes(conclusion) is passed


def test_a_conclusion_with_its_own_think_part_is_read_after_it() -> None:
    text = critique(f"想一想{MET}\n</think>\n{NOT_MET}", f"{NOT_MET}</think>{MET}")
    assert critique_labels(text, 2)[0] == [0, 1]


def test_numbers_are_not_used_only_the_order() -> None:
    text = block(2, NOT_MET) + block(1, MET)
    assert critique_labels(text, 2)[0] == [0, 1]


@pytest.mark.parametrize(
    "text",
    [
        # an end marker misspelled, as in the real sample: 2 starts, 1 end
        block(1, MET) + block(2, MET).replace("-结束]", "-結束]"),
        # a start marker mentioned in the think part counts too
        "<think>写 [检查项1-开始] 开头</think>\n" + block(1, MET) + block(2, MET),
        # a block whose end marker carries another number is no block
        block(1, MET) + block(2, MET).replace("[检查项2-结束]", "[检查项3-结束]"),
        # a missing conclusion: the block is not well formed, its markers still count
        block(1, MET) + block(2, MET).replace(f"结论：{MET}\n", ""),
        # fields out of order
        block(1, MET).replace("要求：", "X：").replace("分析：", "要求：").replace("X：", "分析："),
    ],
    ids=["misspelled-end", "marker-in-think", "other-number", "no-conclusion", "fields-swapped"],
)
def test_marker_counts_that_differ_from_the_blocks_give_no_verdicts(text: str) -> None:
    assert parse_blocks(text) is None
    labels, counts = critique_labels(text, 2)
    assert labels == [1, 1]
    assert not counts.parsed and (counts.read, counts.padded) == (0, 2)
    labels, counts = critique_labels(text, 2, missing="unscored")
    assert labels == [None, None]
    assert (counts.read, counts.padded, counts.unscored) == (0, 0, 2)


def test_fields_must_start_their_own_lines() -> None:
    inline = "[检查项1-开始] 要求：a\n分析：b\n结论：" + MET + "\n[检查项1-结束]"
    assert parse_blocks(inline) is None
    spaced = "[检查项1-开始]  \n\n要求：a\n分析：b  \n结论：  " + MET + "  \n[检查项1-结束]"
    blocks = parse_blocks(spaced)
    assert blocks is not None and [(b.analysis, b.conclusion) for b in blocks] == [("b", MET)]


def test_missing_verdicts_at_the_end_are_padded_or_left_unscored() -> None:
    text = critique(NOT_MET, NOT_MET)
    labels, counts = critique_labels(text, 4)
    assert labels == [0, 0, 1, 1]
    assert (counts.read, counts.padded, counts.unscored, counts.parsed) == (2, 2, 0, True)
    labels, counts = critique_labels(text, 4, missing="unscored")
    assert labels == [0, 0, None, None]
    assert (counts.read, counts.padded, counts.unscored) == (2, 0, 2)


def test_blocks_beyond_the_checklist_are_dropped_and_counted() -> None:
    labels, counts = critique_labels(critique(NOT_MET, MET, NOT_MET), 2)
    assert labels == [0, 1]
    assert (counts.read, counts.dropped, counts.padded) == (2, 1, 0)


@pytest.mark.parametrize("text", [None, "", "我无法判断。"])
def test_no_blocks_or_no_critique_gives_no_verdicts(text: str | None) -> None:
    labels, counts = critique_labels(text, 3)
    assert labels == [1, 1, 1] and not counts.parsed and counts.padded == 3


# --- loading records that carry critiques ---------------------------------------------------


def _critiqued(critiques: list[Any], gold: list[list[int]]) -> dict[str, Any]:
    """A two-constraint Single_Turn record whose responses carry critiques, not labels."""
    record = _record(
        7,
        "Single_Turn",
        "u",
        [(["Format"], ["Single"]), (["Content"], ["And"])],
        gold,
        [[None, None]] * len(gold),
        [(0, 1), (0, 2), (1, 2)],
    )
    for resp, text in zip(record["responses"], critiques, strict=True):
        del resp["pred_labels"]
        resp["critique"] = text
    return record


def test_loader_reads_critiques_into_predictions_and_the_report_counts_them(
    tmp_path: Path,
) -> None:
    """r0 both met; r1 one block of two (second padded); r2 marker mismatch (both padded).
    Gold [1,1] [1,0] [0,0]: predictions [1,1] [0,1] [1,1]: TP 2 FP 3 FN 1 TN 0.
    Scores 1, .5, 1: edge 0>1 concordant, 0>2 tie, 1>2 discordant."""
    texts = [critique(MET, MET), critique(NOT_MET), block(1, MET) + "[检查项2-开始]\n"]
    path = write_jsonl(tmp_path / "c.jsonl", [_critiqued(texts, [[1, 1], [1, 0], [0, 0]])])
    [record] = load_ifrewardbench(path)
    assert [r.pred_labels for r in record.responses] == [[1, 1], [0, 1], [1, 1]]
    report = evaluate([record], b=50)
    counts = report.critiques
    assert counts is not None
    assert counts.model_dump() == {
        "responses": 3,
        "unparsed": 1,
        "verdicts": 6,
        "read": 3,
        "padded": 3,
        "unscored": 0,
        "dropped": 0,
    }
    assert report.overall.positive_f1.value == pytest.approx(2 * 2 / (2 * 2 + 3 + 1))
    assert report.overall.negative_f1.value == 0
    assert report.overall.accuracy.value == pytest.approx(1 / 3)
    assert report.overall.kendall_tau_b.value == 0
    assert report.unscored.labels == 0


def test_unscored_instead_of_padding(tmp_path: Path) -> None:
    texts = [critique(MET, MET), critique(NOT_MET), block(1, MET) + "[检查项2-开始]\n"]
    path = write_jsonl(tmp_path / "c.jsonl", [_critiqued(texts, [[1, 1], [1, 0], [0, 0]])])
    [record] = load_ifrewardbench(path, missing="unscored")
    assert [r.pred_labels for r in record.responses] == [[1, 1], [0, None], [None, None]]
    report = evaluate([record], b=50)
    assert report.critiques is not None
    assert (report.critiques.padded, report.critiques.unscored) == (0, 3)
    assert (report.unscored.labels, report.unscored.responses) == (3, 2)
    # only r0 has a score: all three edges touch an unranked response and count as ties
    assert (report.unscored.edges, report.overall.accuracy.value) == (3, 0)


def test_labels_given_win_over_critiques_and_missing_none_ignores_critiques(
    tmp_path: Path,
) -> None:
    record = _critiqued([critique(MET, MET), None, ""], [[1, 1], [0, 0], [1, 0]])
    record["responses"][0]["pred_labels"] = [0, 0]
    del record["responses"][2]["critique"]
    path = write_jsonl(tmp_path / "c.jsonl", [record])
    [loaded] = load_ifrewardbench(path)
    first, second, third = loaded.responses
    assert (first.pred_labels, first.critique) == ([0, 0], None)
    assert second.pred_labels == [1, 1] and second.critique is not None
    assert not second.critique.parsed  # an explicit null critique gives no verdicts
    assert (third.pred_labels, third.critique) == (None, None)  # no critique field at all
    [ignored] = load_ifrewardbench(path, missing=None)
    assert [r.pred_labels for r in ignored.responses] == [[0, 0], None, None]
    assert evaluate([ignored], b=20).critiques is None


def test_a_critique_that_is_not_text_is_a_located_error(tmp_path: Path) -> None:
    record = _critiqued([critique(MET, MET), ["no"], ""], [[1, 1], [1, 0], [0, 0]])
    with pytest.raises(InputError) as caught:
        load_ifrewardbench(write_jsonl(tmp_path / "c.jsonl", [record]))
    assert (caught.value.line, caught.value.field) == (1, "responses.1.critique")


# --- the authors' released sample -----------------------------------------------------------

needs_real = pytest.mark.skipif(not REAL.is_file(), reason="released sample not present")


@needs_real
def test_released_sample_reproduces_the_released_metric_script() -> None:
    records = load_ifrewardbench(REAL)
    by_id = {r.item.id: r for r in records}
    assert by_id["679"].responses[1].pred_labels == [1] * 10 + [0]
    assert by_id["326"].responses[6].pred_labels == [1, 1, 1, 1, 1, 0, 0]
    typo = by_id["485"].responses[2]
    assert typo.critique is not None and not typo.critique.parsed
    assert typo.pred_labels == [1] * 8
    report = evaluate(records, b=200)
    assert report.critiques is not None
    assert report.critiques.model_dump() == {
        "responses": 36,
        "unparsed": 1,
        "verdicts": 269,
        "read": 261,
        "padded": 8,
        "unscored": 0,
        "dropped": 0,
    }
    expected = {
        "Single_Turn": (0.9836615737878653, 0.6190476190476191, 0.8571428571428572, 0.9225771),
        "Multi_Turn": (0.9095059076262084, 0.2678571428571429, 0.3809523809523809, 0.3068334),
        "System_Prompt": (0.9787234042553191, 0.0, 0.0, 0.0),
    }
    for kind, values in expected.items():
        group = report.by_instruction_type[kind]
        got = (group.positive_f1, group.negative_f1, group.accuracy, group.kendall_tau_b)
        assert [s.value for s in got] == pytest.approx(values, abs=1e-6), kind
    overall = report.overall
    assert overall.positive_f1.value == pytest.approx(0.9572969618897976)
    assert overall.negative_f1.value == pytest.approx(0.2956349206349206)
    assert overall.accuracy.value == pytest.approx(0.4126984126984127)
    assert overall.kendall_tau_b.value == pytest.approx(0.4098035, abs=1e-6)


@needs_real
def test_released_sample_with_unscored_missing_verdicts() -> None:
    padded = evaluate(load_ifrewardbench(REAL), b=50)
    report = evaluate(load_ifrewardbench(REAL, missing="unscored"), b=50)
    assert report.critiques is not None
    assert (report.critiques.padded, report.critiques.unscored) == (0, 8)
    assert (report.unscored.labels, report.unscored.responses) == (8, 1)
    # only instruction 485 (the one System_Prompt) changes
    for kind in ("Single_Turn", "Multi_Turn"):
        assert report.by_instruction_type[kind] == padded.by_instruction_type[kind]
    assert (
        report.by_instruction_type["System_Prompt"] != padded.by_instruction_type["System_Prompt"]
    )


@needs_real
def test_meta_command_reads_the_released_sample() -> None:
    """The command that used to say there are no predictions: the JSON report carries the
    padded count (the table rendering is the CLI's)."""
    result = run_cli("meta", str(REAL), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["critiques"]["padded"] == 8
    assert report["critiques"]["unparsed"] == 1
    assert report["overall"]["kendall_tau_b"]["value"] == pytest.approx(0.4098035, abs=1e-6)


@needs_real
def test_meta_command_prints_the_critique_counts_and_can_leave_them_unscored() -> None:
    padded = run_cli("meta", str(REAL))
    assert padded.returncode == 0, padded.stderr
    text = " ".join(padded.stdout.split())
    assert "critiques: 36 responses, 1 gave no verdicts" in text
    assert "8 padded as passes" in text and "0 left unscored" in text
    unscored = run_cli("meta", str(REAL), "--missing-verdicts", "unscored", "--json")
    assert unscored.returncode == 0, unscored.stderr
    report = json.loads(unscored.stdout)
    assert (report["critiques"]["padded"], report["critiques"]["unscored"]) == (0, 8)
    assert report["unscored"]["labels"] == 8
