"""FB-Bench's leaderboards in the report: for a run whose every item is tagged with one
scenario (EC or RM) and one task, exactly the numbers of `checkbench leaderboard --json`: the
same `store_leaderboard` over the run's store, its breakdown cells macro means over task
groups (model -> facet -> slice "EC", "RM", "all" -> value -> {score, ci, n, unscored})."""

from __future__ import annotations

from typing import Any

from checkbench.fbbench.scoring import is_fbbench_run, store_leaderboard

COLUMNS = [
    ["overall", "Overall"],
    ["error_correction", "Error correction"],
    ["response_maintenance", "Response maintenance"],
]


def _board(run: Any, judge: str) -> dict[str, Any]:
    board = store_leaderboard(run.store, judge, policy=run.options.policy).model_dump(mode="json")
    return {
        "judge": judge,
        "kind": "fb-bench",
        "policy": board["policy"],
        "columns": COLUMNS,
        "rows": board["rows"],
        "breakdowns": board["breakdowns"],
        "score_mismatches": board["score_mismatches"],
    }


def leaderboards(run: Any) -> list[dict[str, Any]] | None:
    """One FB-Bench board per judge of the report's `RunData`; None when the run's items are
    not FB-Bench's."""
    if not is_fbbench_run(run.items):
        return None
    return [_board(run, judge) for judge in run.judges]
