"""FB-Bench's leaderboard of a stored run: the evaluation flow's `score` with the scorer FB-Bench
registers."""

from __future__ import annotations

from functools import partial

from checkbench import registry
from checkbench.evaluation import flow

leaderboard = partial(flow.score, scorer=registry.protocol("fbbench").scorer.score)  # type: ignore[union-attr]
"""FB-Bench scores of a stored run (`flow.score` with FB-Bench's registered scorer): `judge` is
the stored judge id whose verdicts to score (default: the run's only judge), `settings` a
`ScoringSettings`."""
