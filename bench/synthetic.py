"""Synthetic FB-Bench-shaped items shared by the benchmarks that build large runs."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkbench.schema import Item

TASKS = ["Mathematics", "Coding", "Knowledge Q&A", "Text Creation", "Text Translation",
         "Reasoning", "Text Extraction", "Role-play"]  # fmt: skip
WORDS = ["the", "answer", "is", "because", "first", "then", "check", "value", "result", "error",
         "correct", "step", "so", "function", "list", "number", "price", "explain"]  # fmt: skip
FEEDBACK = ["Pointing Out Errors", "Detailed Explanation", "Simple Questioning", "Misinformation"]


def fbbench_tags(i: int) -> dict[str, list[str]]:
    """FB-Bench tags of synthetic item i: EC on even items, tasks and feedback in turn."""
    ec = i % 2 == 0
    return {
        "scenario": ["EC" if ec else "RM"],
        "task": [TASKS[i % len(TASKS)]],
        "subtask": [f"{TASKS[i % len(TASKS)]} {i % 3}"],
        "feedback_type": [FEEDBACK[i % len(FEEDBACK)]],
        "deficiency": ["Logical Error"] if ec else [],
    }


def text(rng: random.Random, chars: int) -> str:
    """Filler words, at least `chars` characters of them."""
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < chars:
        words.append(rng.choice(WORDS))
    return " ".join(words)


def fbbench_item(i: int, rng: random.Random, checks: int) -> Item:
    """Synthetic item i: a feedback conversation with `checks` checks (EC weighted, RM any)."""
    # imported here: the benchmarks' measuring parents import this module without checkbench
    from checkbench.schema import Check, Item, Message

    ec = i % 2 == 0
    return Item(
        id=f"{'ec' if ec else 'rm'}-{i:06d}",
        messages=[
            Message(role="user", content=text(rng, 300)),
            Message(role="assistant", content=text(rng, 400)),
            Message(role="user", content=text(rng, 120)),
        ],
        checklist=[
            Check(id=f"c{k + 1}", text=text(rng, 70), weight=0.25 if ec else None)
            for k in range(checks)
        ],
        rule="weighted" if ec else "any",
        tags=fbbench_tags(i),
    )
