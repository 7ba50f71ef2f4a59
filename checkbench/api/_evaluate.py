"""FB-Bench's leaderboard of a stored run: the evaluation flow's `score` with FB-Bench's scorer."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from checkbench.choices import ScoringProtocol as Protocol  # noqa: F401  (api.Protocol)
from checkbench.evaluation import flow
from checkbench.scoring.settings import ScoringSettings
from checkbench.store import RunStore

if TYPE_CHECKING:
    from checkbench.fbbench.scoring import FBBenchLeaderboard


def _fbbench_scores(store: RunStore, judge: str, settings: ScoringSettings) -> FBBenchLeaderboard:
    """FB-Bench scores per model (EC, RM, Overall) with intervals and breakdowns, read from
    the store in columns, so memory and time stay small for large runs."""
    from checkbench.fbbench.scoring import store_leaderboard

    return store_leaderboard(
        store, judge, policy=settings.policy, source=settings.source, seed=settings.seed
    )


leaderboard = partial(flow.score, scorer=_fbbench_scores)
"""FB-Bench scores of a stored run (`flow.score` with the FB-Bench leaderboard): `judge` is the
stored judge id whose verdicts to score (default: the run's only judge)."""
