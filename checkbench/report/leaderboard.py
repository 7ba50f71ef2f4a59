"""The leaderboard section: one board per judge, with 95% intervals and breakdowns.

A run a registered protocol claims gets that protocol's boards (`Protocol.leaderboards`: FB-Bench
runs its leaderboard, a judge meta-evaluation none). Other runs get the mean item score per
model with its interval, broken down by each tag facet (pooled means over the items). Either
way breakdowns are model -> facet -> slice ("EC", "RM", "all") -> value ->
{score, ci, n, unscored}; the mean boards have the "all" slice only.
"""

from __future__ import annotations

from typing import Any

from checkbench import registry
from checkbench.report.run import RunData
from checkbench.schema import Item
from checkbench.scoring import facet_breakdown, summarize
from checkbench.scoring.layout import breaks_down

MEAN_COLUMNS = [["overall", "Score"]]


def _facets(items: list[Item]) -> list[str]:
    values: dict[str, set[str]] = {}
    for item in items:
        for facet, tags in item.tags.items():
            values.setdefault(facet, set()).update(tags)
    return sorted(facet for facet, seen in values.items() if breaks_down(facet, len(seen)))


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
    """One leaderboard per judge (none before anything is judged): the boards of the first
    protocol that claims the run, else the mean boards."""
    for protocol in registry.protocols():
        if protocol.leaderboards is not None:
            boards = protocol.leaderboards(run)
            if boards is not None:
                return boards
    return [_mean_board(run, judge) for judge in run.judges]
