"""Evaluating models on a benchmark: the evaluation flow (`checkbench.evaluation.flow`) with
the benchmark protocols' scorers, and FB-Bench's published judgments brought into a run.

Scoring "by the benchmark's protocol" is chosen here, above the protocol packages, until the
protocol registry lets the flow find a benchmark's scorer itself.
"""

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
    from checkbench.convbench.scoring import BenchScores
    from checkbench.fbbench.scoring import FBBenchLeaderboard
    from checkbench.fbbench.versions import ImportSummary


def _fbbench_scores(store: RunStore, judge: str, settings: ScoringSettings) -> FBBenchLeaderboard:
    """FB-Bench scores per model (EC, RM, Overall) with intervals and breakdowns, read from
    the store in columns, so memory and time stay small for large runs."""
    from checkbench.fbbench.scoring import store_leaderboard

    return store_leaderboard(
        store, judge, policy=settings.policy, source=settings.source, seed=settings.seed
    )


def _score_by_protocol(
    store: RunStore, judge: str, settings: ScoringSettings
) -> FBBenchLeaderboard | BenchScores:
    """The run's scores by `settings.protocol`: "fb-bench" (the FB-Bench leaderboard: needs a
    scenario and a task per item) or "conv-to-bench" (the mean of each item's checks, cluster
    bootstrap over items); "auto" picks FB-Bench when every item carries its tags."""
    from checkbench.fbbench.scoring import is_fbbench_store

    if settings.protocol == "fb-bench" or (settings.protocol == "auto" and is_fbbench_store(store)):
        return _fbbench_scores(store, judge, settings)
    from checkbench.convbench.scoring import store_bench_scores  # loaded only for it

    return store_bench_scores(store, judge, policy=settings.policy, seed=settings.seed)


run = partial(flow.run, scorer=_score_by_protocol)
"""`checkbench.evaluation.flow.run`, scoring by the benchmark's protocol."""

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
