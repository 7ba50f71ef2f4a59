"""FB-Bench's leaderboard of a stored run (the evaluation flow's `score` with FB-Bench's
scorer), and FB-Bench's published judgments brought into a run."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from checkbench.choices import ScoringProtocol as Protocol  # noqa: F401  (api.Protocol)
from checkbench.evaluation import flow
from checkbench.evaluation.runs import store_items
from checkbench.scoring.settings import ScoringSettings
from checkbench.store import STORE_FILE, RunStore

if TYPE_CHECKING:
    from checkbench.fbbench.scoring import FBBenchLeaderboard
    from checkbench.fbbench.versions import ImportSummary


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


def import_fbbench_judgments(directory: str | Path, run_dir: str | Path) -> ImportSummary:
    """Load published FB-Bench judgment files (one JSONL per model) into a run, new or not: a
    sample already in the run is matched by its content, so files of either dataset version
    land on the same item. The summary says what was read and what differed."""
    from checkbench.fbbench.judgments import load_fbbench_judgment_dir

    known = []
    if (Path(run_dir) / STORE_FILE).is_file():
        with RunStore.existing(run_dir) as store:
            known = store.items()
    loaded = load_fbbench_judgment_dir(directory, known=known)
    with store_items(loaded.items, f"FB-Bench judgments from {directory}", run_dir) as store:
        with store.transaction():
            for response in loaded.responses:
                store.put_response(response)
        store.put_verdicts(loaded.verdicts)
    return loaded.summary
