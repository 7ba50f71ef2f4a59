"""Junk a build model writes: placeholder checks, the prompt's own wording as a check or as
the instruction. Each is dropped, counted by reason in the report and kept in the decision
record with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.benchmarks import load_items
from checkbench.convbench.checklist import ONLY_JUNK
from checkbench.convbench.decisions import DECISIONS
from checkbench.convbench.junk import ECHO, PLACEHOLDER, junk_reason, sift
from checkbench.store import RunStore
from tests.convbench.build_helpers import Request, answer, routed
from tests.convbench.test_stages import _build, _spec, _stage, conv_route

EXAMPLE_CHECK = "Does the function return the list sorted in descending order?"
"""The example requirement of the build_checklist prompt."""
ECHOED_INSTRUCTION = "Write ONE self-contained instruction that asks for the final result."


@pytest.mark.parametrize(
    ("text", "prompt", "reason"),
    [
        ("<yes/no question>", "build_checklist", PLACEHOLDER),
        ("...", "build_checklist", PLACEHOLDER),
        ("  …  ", "build_fb_draft", PLACEHOLDER),
        (EXAMPLE_CHECK, "build_checklist", ECHO),
        (ECHOED_INSTRUCTION, "build_instruction", ECHO),
        ("Does the script sort the rows by the 'date' column?", "build_checklist", None),
        ("Write a bash script that renames every .txt file.", "build_instruction", None),
        ("Is it in Rust?", "build_checklist", None),
    ],
)
def test_placeholders_and_echoes_are_told_from_real_text(
    text: str, prompt: str, reason: str | None
) -> None:
    assert junk_reason(text, prompt) == reason


def test_sift_keeps_positions_and_says_why_each_was_dropped() -> None:
    kept, junk = sift(["Is it sorted?", "<yes/no question>", EXAMPLE_CHECK], "build_checklist")
    assert kept == [0]
    assert junk == [
        {"text": "<yes/no question>", "reason": PLACEHOLDER},
        {"text": EXAMPLE_CHECK, "reason": ECHO},
    ]


def _junk_route(request: Request) -> str:
    """The capable model, but with junk checks for sg-sql, only junk for lm-rust and the
    prompt's wording as the instruction of lm-bash."""
    about = request.about
    if request.stage == "instruction" and about == "lm-bash":
        return answer(instruction=ECHOED_INSTRUCTION)
    if request.stage == "checklist" and about in ("sg-sql", "lm-rust"):
        junk = [
            {"text": "<yes/no question>", "source": "instruction"},
            {"text": "...", "source": "instruction"},
            {"text": EXAMPLE_CHECK, "source": "instruction"},
        ]
        real = [{"text": "Does the query return the top customer?", "source": "instruction"}]
        return answer(checks=junk + (real if about == "sg-sql" else []))
    return str(conv_route(request))


def test_a_build_drops_junk_checks_and_instructions_and_counts_them(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with routed(_junk_route) as server:
        report = _build(server, _spec(tmp_path), run)
    assert report.broken_chain() == []
    checklist = _stage(report, "checklist")
    assert checklist["junk"] == {ECHO: 2, PLACEHOLDER: 4}
    assert checklist["reasons"] == {ONLY_JUNK: 1}
    assert _stage(report, "instruction")["reasons"] == {f"instruction {ECHO}": 1}
    items = {item.id: item for item in load_items(run / "bench.jsonl")}
    assert "lm-rust" not in items and "lm-bash" not in items
    assert [(c.id, c.text) for c in items["sg-sql"].checklist] == [
        ("c1", "Does the query return the top customer?")
    ]
    with RunStore.existing(run) as store:
        record = store.records(DECISIONS["checklist"])["sg-sql"]
    assert {entry["reason"] for entry in record["junk"]} == {PLACEHOLDER, ECHO}


def test_the_stage_table_shows_the_junk_with_its_reason() -> None:
    from checkbench.console.tables import layout
    from checkbench.convbench.cli import stages_grid
    from checkbench.convbench.decisions import StageCount

    stage = StageCount(
        stage="checklist", seen=3, kept=2, dropped=1, reasons={ONLY_JUNK: 1}, junk={PLACEHOLDER: 4}
    )
    lines = [line.plain for line in layout(stages_grid("Build", [stage]), 80)]
    assert max(len(line) for line in lines) <= 80
    text = " ".join(" ".join(lines).split())
    assert "only junk checks: 1" in text and "placeholder: 4" in text
