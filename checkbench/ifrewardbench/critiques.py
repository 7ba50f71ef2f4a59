"""Verdicts from the raw critiques of IF-RewardBench's released judge outputs.

A released judge output carries, per response, the judge's text instead of labels: one block
per constraint, in checklist order,

    [检查项N-开始]
    要求：<the constraint>
    分析：<the judge's analysis>
    结论：<the conclusion>
    [检查项N-结束]

often after a `<think>...</think>` part. The rules are those of the authors' metric script
(docs/protocols.md section 3.6):

- A block opens with `[检查项N-开始]`, its fields start on their own lines in that order, and
  it closes at the first `[检查项N-结束]` (same N) on a line of its own. Blocks are read over
  the whole critique, think part included, and taken in order (their numbers are not used).
- If the critique's count of start markers (`-开始]`) or of end markers (`-结束]`) differs
  from its number of blocks, the critique gives no verdicts at all.
- A conclusion is read after its last `</think>`; it is a pass when it contains
  人工智能助手的回复满足了该要求 (with or without [[ ]]) or [[满足该要求]], else a fail.
- Verdicts beyond the checklist are dropped. Verdicts missing at the end are padded as passes
  (`missing="pass"`, which reproduces the published numbers) or left unscored
  (`missing="unscored"`); either way they are counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from checkbench.choices import MissingVerdicts

PASS_PHRASES = ("人工智能助手的回复满足了该要求", "[[满足该要求]]")
START_MARK, END_MARK = "-开始]", "-结束]"
THINK_END = "</think>"

_START = re.compile(r"\[检查项(\d+)-开始\]")
_FIELDS = re.compile(r"\s*\n要求：(?P<req>.*?)\n分析：(?P<ana>.*?)\n结论：(?P<con>.*)", re.S)


@dataclass(frozen=True)
class Block:
    """One constraint's assessment in a critique."""

    number: int
    requirement: str
    analysis: str
    conclusion: str

    @property
    def passed(self) -> bool:
        """Whether the conclusion, read after any think part, says the constraint is met."""
        return conclusion_passes(self.conclusion)


def conclusion_passes(conclusion: str) -> bool:
    """A pass when the text after the last `</think>` holds one of the pass phrases."""
    final = conclusion.rsplit(THINK_END, 1)[-1]
    return any(phrase in final for phrase in PASS_PHRASES)


def _block(number: str, body: str) -> Block | None:
    """The block whose text between its markers is `body`, None if its fields are missing."""
    found = _FIELDS.match(body)
    if found is None:
        return None
    return Block(int(number), *(found[k].strip() for k in ("req", "ana", "con")))


def _scan(critique: str) -> Iterable[Block]:
    """Every well-formed block, left to right; a start marker without one is skipped."""
    pos = 0
    while (start := _START.search(critique, pos)) is not None:
        end_marker = f"\n[检查项{start[1]}-结束]"
        end = critique.find(end_marker, start.end())
        block = _block(start[1], critique[start.end() : end]) if end >= 0 else None
        if block is None:
            pos = start.end()
            continue
        yield block
        pos = end + len(end_marker)


def parse_blocks(critique: str) -> list[Block] | None:
    """The critique's blocks in order, or None when its marker counts do not match them."""
    blocks = list(_scan(critique))
    if critique.count(START_MARK) != len(blocks) or critique.count(END_MARK) != len(blocks):
        return None
    return blocks


class CritiqueVerdicts(BaseModel):
    """How one response's predicted labels came out of its critique."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    read: int
    """Verdicts read from blocks (at most one per constraint)."""
    padded: int
    """Constraints without a verdict, padded as passes."""
    unscored: int
    """Constraints without a verdict, left unscored."""
    dropped: int
    """Blocks beyond the checklist, ignored."""
    parsed: bool
    """False when the critique gave no verdicts (no blocks, marker counts differ, or null)."""


def critique_labels(
    critique: str | None, constraints: int, missing: MissingVerdicts = "pass"
) -> tuple[list[Literal[0, 1] | None], CritiqueVerdicts]:
    """The predicted label of each constraint from a critique (None: no critique text), with
    what was read, padded, left unscored and dropped."""
    blocks = parse_blocks(critique) if critique is not None else None
    verdicts: list[Literal[0, 1] | None] = [1 if b.passed else 0 for b in blocks or []]
    read = verdicts[:constraints]
    gap = constraints - len(read)
    fill: Literal[1] | None = 1 if missing == "pass" else None
    counts = CritiqueVerdicts(
        read=len(read),
        padded=gap if missing == "pass" else 0,
        unscored=gap if missing == "unscored" else 0,
        dropped=len(verdicts) - len(read),
        parsed=bool(blocks),
    )
    return read + [fill] * gap, counts
