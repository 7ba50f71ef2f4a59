"""Ranking metrics over gold preference edges, whatever orders the two responses of an edge.

A judge's order of two responses comes from a `Prefer` function: from ranking scores (a
listwise judge, or pointwise scores) or straight from pairwise judgments. Per instruction,
over its unique edges: accuracy = C / edges and Kendall tau_b = (C - D) / sqrt((C + D)(C + D +
T)), C, D and T counting concordant, discordant and tied (or unscored) edges; both 0 when C + D
= 0 as in the released IF-RewardBench code. Means are taken over instructions within each
instruction_type, and the Overall is the mean of the instruction-type means.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel

from checkbench.choices import NoEdges
from checkbench.ifrewardbench.records import MetaRecord
from checkbench.stats import macro_mean_ci
from checkbench.stats.estimate import Stat
from checkbench.stats.preference import Prefer

RANKING_METRICS = ("accuracy", "kendall_tau_b")


def kendall_tau_b(concordant: int, discordant: int, ties: int) -> float:
    """Kendall tau_b over gold-strict pairs with `ties` predicted ties; 0 when C + D = 0."""
    decided = concordant + discordant
    if decided == 0:
        return 0.0
    return (concordant - discordant) / float(np.sqrt(decided * (decided + ties)))


@dataclass(frozen=True)
class EdgeScores:
    """Ranking metrics of one instruction; None when it has no edges and is excluded."""

    accuracy: float | None
    kendall_tau_b: float | None
    edges: int
    unscored_edges: int


def score_edges(record: MetaRecord, prefer: Prefer, no_edges: NoEdges = "exclude") -> EdgeScores:
    """Accuracy and tau_b over the record's unique edges (duplicates counted once)."""
    counts: Counter[str] = Counter()
    for chosen, rejected in dict.fromkeys((e.chosen, e.rejected) for e in record.preference_graph):
        order = prefer(chosen, rejected)
        if order is None:
            counts.update(["T", "unscored"])
        else:
            counts["C" if order > 0 else "D" if order < 0 else "T"] += 1
    edges = counts["C"] + counts["D"] + counts["T"]
    accuracy, tau = (None, None) if no_edges == "exclude" else (0.0, 0.0)
    if edges:
        accuracy, tau = counts["C"] / edges, kendall_tau_b(counts["C"], counts["D"], counts["T"])
    return EdgeScores(accuracy, tau, edges, counts["unscored"])


Scored = list[tuple[MetaRecord, Any]]
"""Instructions paired with their per-instruction metrics (attributes named like the metric)."""


def grouped(scored: Scored, key: Callable[[MetaRecord], Hashable]) -> dict[Hashable, Scored]:
    """Instructions grouped by key, groups in key order."""
    groups: dict[Hashable, Scored] = {}
    for pair in sorted(scored, key=lambda pair: key(pair[0])):
        groups.setdefault(key(pair[0]), []).append(pair)
    return groups


def mean_stats(
    groups: Sequence[Scored], metrics: Sequence[str], *, b: int, seed: int, level: float
) -> dict[str, Stat]:
    """Per metric, the mean of the group means (one group: its plain mean) with its interval;
    instructions whose value is None are left out."""

    def stat(metric: str) -> Stat:
        values = [
            [v for _, s in group if (v := getattr(s, metric)) is not None] for group in groups
        ]
        return Stat.from_estimate(macro_mean_ci(values, b=b, seed=seed, level=level))

    return {metric: stat(metric) for metric in metrics}


class RankingMetrics(BaseModel):
    """Mean accuracy and tau_b of a group of instructions; n = instructions with edges."""

    instructions: int
    accuracy: Stat
    kendall_tau_b: Stat


class RankingReport(BaseModel):
    """A judge's edge accuracy and tau_b: Overall (mean of instruction-type means) and per type,
    with the edges it left unordered (counted as ties)."""

    overall: RankingMetrics
    by_instruction_type: dict[str, RankingMetrics]
    unscored_edges: int
    total_edges: int


def rank_edges(
    records: Sequence[MetaRecord],
    prefer_of: Callable[[MetaRecord], Prefer],
    *,
    no_edges: NoEdges,
    b: int,
    seed: int,
    level: float,
) -> RankingReport:
    """Edge metrics of the order `prefer_of(record)` gives each record's responses."""
    scored = [(r, score_edges(r, prefer_of(r), no_edges)) for r in records]
    options = {"b": b, "seed": seed, "level": level}

    def metrics(groups: Sequence[Scored]) -> RankingMetrics:
        count = sum(len(group) for group in groups)
        return RankingMetrics(instructions=count, **mean_stats(groups, RANKING_METRICS, **options))

    by_type = grouped(scored, lambda r: r.instruction_type)
    return RankingReport(
        overall=metrics(list(by_type.values())),
        by_instruction_type={str(k): metrics([g]) for k, g in by_type.items()},
        unscored_edges=sum(s.unscored_edges for _, s in scored),
        total_edges=sum(s.edges for _, s in scored),
    )
