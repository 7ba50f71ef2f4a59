"""Synthetic FB-Bench-shaped tags shared by the benchmarks that build large runs."""

from __future__ import annotations

TASKS = ["Mathematics", "Coding", "Knowledge Q&A", "Text Creation", "Text Translation",
         "Reasoning", "Text Extraction", "Role-play"]  # fmt: skip
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
