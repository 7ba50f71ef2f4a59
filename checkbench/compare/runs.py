"""The settings of a comparison, one object the CLI builds from its options and the API
takes as it is."""

from __future__ import annotations

from dataclasses import dataclass

from checkbench.stats import DEFAULT_SEED


@dataclass(frozen=True)
class CompareSettings:
    """`judge_id`: the judge whose verdicts score both sides (default: the one judge the runs
    share); `allow_different_judges`: compare two runs each judged by its own only judge (the
    result says so); `alpha`: the test level, the interval being at 1 - alpha; `margin`: a
    drop in points that counts as worse whatever the test says (None: none); `top`: how many
    of the items that moved most to list; `seed` and `resamples`: the bootstrap's and the
    permutation test's; `tags`: compute the per-tag deltas (the report's Compare tab does
    without)."""

    judge_id: str | None = None
    allow_different_judges: bool = False
    alpha: float = 0.05
    margin: float | None = None
    top: int = 10
    seed: int = DEFAULT_SEED
    resamples: int = 10_000
    tags: bool = True
