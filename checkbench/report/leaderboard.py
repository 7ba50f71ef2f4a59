"""The leaderboard section: one board per judge, with 95% intervals and breakdowns.

FB-Bench runs (every item tagged with one scenario, EC or RM, and one task) get exactly the
numbers of `checkbench leaderboard --json`: the same `store_leaderboard` over the run's
store, its breakdown cells macro means over task groups. Other runs get the
mean item score per model with its interval, broken down by each tag facet (pooled means over
the items). Either way breakdowns are model -> facet -> slice ("EC", "RM", "all") -> value ->
{score, ci, n, unscored}; other runs have the "all" slice only.
"""

from __future__ import annotations

from typing import Any

from checkbench.fbbench.scoring import is_fbbench_run, store_leaderboard
from checkbench.ifrewardbench.run import META_RUN
from checkbench.report.run import RunData
from checkbench.schema import Item
from checkbench.scoring import facet_breakdown, summarize

FBBENCH_COLUMNS = [
    ["overall", "Overall"],
    ["error_correction", "Error correction"],
    ["response_maintenance", "Response maintenance"],
]
MEAN_COLUMNS = [["overall", "Score"]]
MAX_FACET_VALUES = 40
"""A facet with more values than this (ids, free text) is not a useful breakdown."""
SKIPPED_FACETS = {"taxonomy"}
"""Facets with their own section."""


def _fbbench_board(run: RunData, judge: str) -> dict[str, Any]:
    board = store_leaderboard(run.store, judge, policy=run.options.policy).model_dump(mode="json")
    return {
        "judge": judge,
        "kind": "fb-bench",
        "policy": board["policy"],
        "columns": FBBENCH_COLUMNS,
        "rows": board["rows"],
        "breakdowns": board["breakdowns"],
        "score_mismatches": board["score_mismatches"],
    }


def _facets(items: list[Item]) -> list[str]:
    values: dict[str, set[str]] = {}
    for item in items:
        for facet, tags in item.tags.items():
            values.setdefault(facet, set()).update(tags)
    return sorted(
        facet
        for facet, seen in values.items()
        if facet not in SKIPPED_FACETS and 1 < len(seen) <= MAX_FACET_VALUES
    )


def _mean_board(run: RunData, judge: str) -> dict[str, Any]:
    policy = run.options.policy
    facets = _facets(run.items)
    rows, breakdowns = [], {}
    for model, scores in run.scores[judge].items():
        cell = summarize(list(scores.values()), policy)
        rows.append(
            {
                "model": model,
                "overall": cell.score,
                "overall_ci": cell.ci,
                "n": cell.n,
                "unscored": cell.unscored,
            }
        )
        breakdowns[model] = {
            facet: {
                "all": {
                    value: group.model_dump(mode="json")
                    for value, group in facet_breakdown(run.items, scores, facet, policy).items()
                }
            }
            for facet in facets
        }
    rows.sort(key=lambda row: (row["overall"] is None, -(row["overall"] or 0.0), row["model"]))
    return {
        "judge": judge,
        "kind": "mean",
        "policy": policy,
        "columns": MEAN_COLUMNS,
        "rows": rows,
        "breakdowns": breakdowns,
    }


def leaderboards(run: RunData) -> list[dict[str, Any]]:
    """One leaderboard per judge; none before anything is judged, and none in a judge
    meta-evaluation (`checkbench meta --judge`), whose responses are the benchmark's, not
    models under test: there the judges are ranked (the meta section)."""
    if run.store.get_meta(META_RUN, False):
        return []
    board = _fbbench_board if is_fbbench_run(run.items) else _mean_board
    return [board(run, judge) for judge in run.judges]
