"""Meta-evaluation of a pairwise judge that saw every pair in both orders.

Each gold edge gets the judge's two-order decision: the response that won in both orders, a
tie when both orders say tie or when they disagree (inconsistent), and no decision (unscored,
counted as a tie) when either order is missing or unusable. Pairwise accuracy and tau_b are
computed from those decisions over the edges (checkbench.ifrewardbench.edges). The same judgments,
every usable order counted once, also rank all responses of an instruction by Bradley-Terry
strength or Elo rating (a response with no usable judgment gets no score): the listwise
ranking, scored over the same edges.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel

from checkbench.choices import PairwiseMethod as Method
from checkbench.ifrewardbench.edges import NoEdges, RankingReport, rank_edges
from checkbench.ifrewardbench.records import MetaRecord
from checkbench.schema import PairVerdict
from checkbench.stats.preference import by_scores, two_order_prefer
from checkbench.stats.ranking import (
    Comparison,
    PositionReport,
    bradley_terry,
    elo,
    position_consistency,
)


def _by_item(verdicts: Iterable[PairVerdict]) -> dict[str, list[PairVerdict]]:
    items: dict[str, list[PairVerdict]] = {}
    for v in verdicts:
        items.setdefault(v.item_id, []).append(v)
    return items


def _strengths(
    record: MetaRecord, verdicts: Sequence[PairVerdict], method: Method, seed: int
) -> dict[str, float | None]:
    comparisons = [
        Comparison(a=v.a, b=v.b, winner=v.winner) for v in verdicts if v.winner is not None
    ]
    if not comparisons:
        strengths: dict[str, float] = {}
    elif method == "elo":
        strengths = elo(comparisons, seed=seed)
    else:
        strengths = bradley_terry(comparisons)
    return {r.response_id: strengths.get(r.response_id) for r in record.responses}


def listwise_scores(
    records: Sequence[MetaRecord],
    verdicts: Iterable[PairVerdict],
    *,
    method: Method = "bradley_terry",
    seed: int = 0,
) -> dict[str, dict[str, float | None]]:
    """By item, each response's Bradley-Terry strength or Elo rating from the usable judgments
    of that item; None for a response that no usable judgment involves."""
    by_item = _by_item(verdicts)
    return {r.item.id: _strengths(r, by_item.get(r.item.id, []), method, seed) for r in records}


class PairwiseReport(BaseModel):
    """A pairwise judge: both-order edge accuracy and tau_b (`edges`), the listwise ranking its
    judgments give (`listwise`), position consistency, and what it left unscored."""

    method: Method
    judgments: int
    """Ordered judgments asked for (each pair twice)."""
    unscored: int
    """Judgments without a usable answer."""
    ties: int
    """Judgments that answered tie."""
    unranked_responses: int
    """Responses no usable judgment involves (no listwise score)."""
    position: PositionReport
    edges: RankingReport
    listwise: RankingReport


def _position(verdicts: Mapping[str, Sequence[PairVerdict]]) -> PositionReport:
    """Position consistency over all instructions; ids are made unique per instruction."""

    def key(item_id: str, response_id: str) -> str:
        return json.dumps([item_id, response_id])

    return position_consistency(
        Comparison(a=key(item_id, v.a), b=key(item_id, v.b), winner=v.winner)
        for item_id, group in verdicts.items()
        for v in group
        if v.winner is not None
    )


def pairwise_report(
    records: Sequence[MetaRecord],
    verdicts: Iterable[PairVerdict],
    *,
    method: Method = "bradley_terry",
    no_edges: NoEdges = "exclude",
    b: int,
    seed: int,
    level: float = 0.95,
) -> PairwiseReport:
    """Meta-evaluate the pairwise judgments of one judge on `records`."""
    every = _by_item(verdicts)
    by_item = {r.item.id: every.get(r.item.id, []) for r in records}
    judged = [v for group in by_item.values() for v in group]
    scores = listwise_scores(records, judged, method=method, seed=seed)
    options = {"no_edges": no_edges, "b": b, "seed": seed, "level": level}
    return PairwiseReport(
        method=method,
        judgments=len(judged),
        unscored=sum(v.winner is None for v in judged),
        ties=sum(v.winner == "tie" for v in judged),
        unranked_responses=sum(s is None for group in scores.values() for s in group.values()),
        position=_position(by_item),
        edges=rank_edges(records, lambda r: two_order_prefer(by_item[r.item.id]), **options),
        listwise=rank_edges(records, lambda r: by_scores(scores[r.item.id]), **options),
    )
