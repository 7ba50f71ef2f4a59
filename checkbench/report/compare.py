"""The Compare section: each pair of the run's models (the first `MAX_MODELS`, in name order)
by the first reported judge: the paired delta of the headline score, the flipped checks, and
the items that moved most with both answers side by side (`checkbench compare` adds the
per-tag deltas)."""

from __future__ import annotations

from dataclasses import asdict
from itertools import combinations
from typing import Any

from checkbench.compare import CompareSettings, compare_pairs
from checkbench.report.run import RunData
from checkbench.stats import DEFAULT_B

MAX_MODELS = 8
"""Models compared pairwise in the report: 28 pairs at most."""
TOP = 10
"""Items that moved most, per pair."""


def compare_section(run: RunData) -> dict[str, Any] | None:
    """None for a run of fewer than two models or without verdicts."""
    if len(run.models) < 2 or not run.judges:
        return None
    judge = run.judges[0]
    settings = CompareSettings(judge_id=judge, top=TOP, resamples=DEFAULT_B, tags=False)
    pairs = list(combinations(run.models[:MAX_MODELS], 2))
    found = compare_pairs(run.store, pairs, settings)
    return {
        "judge": judge,
        "models": len(run.models),
        "pairs": [
            {key: value for key, value in asdict(c).items() if key != "by_tag"} for c in found
        ],
    }
