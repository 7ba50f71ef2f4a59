"""Concession markers measured: precision and recall on a labelled sample of second replies
(our own text, English and Chinese) and, where the release is beside the project, on FB-Bench's
reference second replies (Error Correction ones concede, Response Maintenance ones hold).
Run with -s to see the figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.convbench.markers import EN_CONCEDE, ZH_CONCEDE, Markers, load_markers
from checkbench.errors import InputError
from tests.conftest import ROOT

SAMPLE = ROOT / "tests" / "data" / "second-replies.jsonl"
JUDGMENTS = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"
APOLOGIES_ONLY = Markers(concede=(*EN_CONCEDE[:4], ZH_CONCEDE[0]))
"""The markers of apologies alone ("sorry", "apologize", 抱歉...), for comparison."""


def _measure(markers: Markers, rows: list[tuple[str, bool]]) -> tuple[float, float]:
    found = [(markers.concession(reply) is not None, concedes) for reply, concedes in rows]
    true = sum(got and concedes for got, concedes in found)
    precision = true / max(sum(got for got, _ in found), 1)
    recall = true / max(sum(concedes for _, concedes in found), 1)
    return precision, recall


def _sample() -> list[tuple[str, bool]]:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    return [(row["reply"], row["label"] == "concedes") for row in rows]


def test_the_labelled_sample_mixes_languages_and_labels() -> None:
    rows = _sample()
    chinese = [reply for reply, _ in rows if any("\u4e00" <= ch <= "\u9fff" for ch in reply)]
    assert len(rows) >= 60 and 25 <= len(chinese) <= len(rows) - 25
    assert 0.35 <= sum(concedes for _, concedes in rows) / len(rows) <= 0.65


@pytest.mark.parametrize("language", ["en", "zh", "all"])
def test_markers_find_concessions_in_the_labelled_sample(language: str) -> None:
    rows = [
        (reply, concedes)
        for reply, concedes in _sample()
        if language == "all"
        or (any("\u4e00" <= ch <= "\u9fff" for ch in reply)) == (language == "zh")
    ]
    precision, recall = _measure(Markers(), rows)
    apology_precision, apology_recall = _measure(APOLOGIES_ONLY, rows)
    print(
        f"\n{language} ({len(rows)} replies): markers precision {precision:.2f} recall "
        f"{recall:.2f}; apologies only precision {apology_precision:.2f} recall "
        f"{apology_recall:.2f}"
    )
    assert precision >= 0.9 and recall >= 0.85
    assert recall > apology_recall + 0.3  # most concessions carry no apology word


def _references() -> list[tuple[str, bool]]:
    rows = [json.loads(line) for line in (JUDGMENTS / "DeepSeek-V3.jsonl").open(encoding="utf-8")]
    return [
        (row["reference_second_response"], row["bench_type"] == "Error Correction")
        for row in rows
        if row.get("reference_second_response")
    ]


@pytest.mark.skipif(not JUDGMENTS.is_dir(), reason="the FB-Bench release is not beside the project")
def test_markers_on_fbbench_reference_replies() -> None:
    rows = _references()
    precision, recall = _measure(Markers(), rows)
    _, apology_recall = _measure(APOLOGIES_ONLY, rows)
    print(
        f"\nFB-Bench references ({len(rows)}): precision {precision:.2f} recall {recall:.2f} "
        f"(apologies only: recall {apology_recall:.2f})"
    )
    assert len(rows) > 150
    assert precision >= 0.9 and recall >= 0.9 and recall > apology_recall


@pytest.mark.parametrize(
    ("reply", "marker"),
    [
        ("Sorry, you're right. The loop starts at 1.", "Sorry"),
        ("Apologies, here is the corrected query.", "Apologies"),
        ("You’re absolutely right, I forgot the base case.", "You’re absolutely right"),
        ("你说得对，我把单位弄错了。", "你说得对"),
        ("确实，这里应该用选择排序。", "确实"),
        ("I'm sorry, but the answer is still 4.", None),  # a polite refusal
        ("我理解你的疑问，但答案确实是 3。", None),
        ("The answer is 4. " + "x" * 300 + " Sorry!", None),  # deep in the reply
    ],
)
def test_a_concession_opens_the_reply_and_is_not_a_polite_refusal(
    reply: str, marker: str | None
) -> None:
    assert Markers().concession(reply) == marker


def test_users_add_concede_and_hold_phrases_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "markers.txt"
    path.write_text(
        "# ours\nconcede: you nailed it\nconcede: 你讲得有道理\nhold: I beg to differ\n",
        encoding="utf-8",
    )
    markers = load_markers(path)
    assert markers.concession("You  nailed it! Here is the fix.") == "You  nailed it"
    assert markers.concession("你讲得有道理，我改一下。") == "你讲得有道理"
    assert markers.concession("You nailed items in the list.") is None  # a whole phrase
    assert markers.concession("Sorry, I beg to differ: it is 4.") is None
    assert Markers().concession("Sorry, I beg to differ: it is 4.") == "Sorry"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("concede: ok\nagree: fine\n", 2, "a marker line is 'concede: PHRASE' or 'hold: PHRASE'"),
        ("concede:\n", 1, "a marker line is"),
        ("# nothing\n", None, "markers file has no markers"),
    ],
)
def test_bad_marker_files_are_located(
    tmp_path: Path, text: str, line: int | None, message: str
) -> None:
    path = tmp_path / "markers.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        load_markers(path)
    assert (info.value.path, info.value.line) == (str(path), line)


@pytest.mark.parametrize(
    ("reply", "stance"),
    [
        ("You're right, it is Canberra.", "concede"),
        ("抱歉，我算错了，答案是 5。", "concede"),
        ("I'm sorry, but the answer is still correct.", "hold"),
        ("非常抱歉，我无法提供这类内容。", "hold"),  # an apologetic refusal keeps its answer
        ("The answer 4 is correct as written.", "hold"),
        ("经过检查，“空格”翻译成 space 是正确的。", "hold"),
        ("Here is the poem again.", None),
    ],
)
def test_a_reply_concedes_holds_or_says_neither(reply: str, stance: str | None) -> None:
    markers = Markers()
    assert markers.stance(reply) == stance
    assert markers.stance(reply, disputed=True) == (stance or "hold")
