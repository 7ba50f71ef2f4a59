"""IF-RewardBench meta-evaluation of a judge, computed as the released IF-RewardBench code does.

Per instruction:
- Verification: Positive F1 and Negative F1 over all its (response x constraint) labels
  (see `class_f1`: 0 when a class has no true positive, even if it is absent from gold and
  predictions). Unscored predictions count as wrong (see checkbench.stats.agreement).
- Ranking, over the preference-graph edges only (duplicates counted once), each response
  scored by its ranking score: the mean of its predicted labels (`ranking="labels"`; no score
  if any label is unscored) or the judge's `pred_score` (`ranking="score"`). An edge is
  concordant (C) if score(chosen) > score(rejected), discordant (D) if lower, and a predicted
  tie (T) if equal or if either score is missing (counted in `unscored.edges`).
  accuracy = C / edges; Kendall tau_b = (C - D) / sqrt((C + D)(C + D + T)), 0 when C + D = 0
  (all ties) as in the released code. Gold edges are strict, so there are no gold ties.
  An instruction without edges is left out of both averages and counted
  (`no_edges="exclude"`); `no_edges="zero"` scores it 0 for both, as the released code does.

Averages are over instructions within each instruction_type; Overall is the mean of the
instruction-type averages, with a bootstrap that resamples instructions within each type.
Breakdowns by turn count and constraint count average instructions in each bin; breakdowns by
constraint category and composition type pool every label of the constraints in that class.

Predictions read from released critiques (checkbench.ifrewardbench.critiques) are counted in
`critiques`: how many verdicts were read, padded as passes, left unscored or dropped, and how
many critiques gave none.

A judge that gave no labels at all (one that only ranks, e.g. a pairwise judge) has no
verification metrics: its F1 statistics are undefined (n = 0), its label breakdowns empty and
its `agreement` None. A pairwise judge's own report rides along in `pairwise`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel

from checkbench.ifrewardbench.edges import (
    RANKING_METRICS,
    NoEdges,
    Scored,
    grouped,
    mean_stats,
    score_edges,
)
from checkbench.ifrewardbench.pairwise import PairwiseReport
from checkbench.ifrewardbench.records import (
    CATEGORY,
    COMPOSITION,
    MetaRecord,
    MetaResponse,
    count_turns,
)
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.stats.agreement import Agreement, agreement_from_tables, class_f1, confusion_table
from checkbench.stats.estimate import Stat
from checkbench.stats.preference import by_scores

Ranking = Literal["labels", "score"]
_F1 = ("positive_f1", "negative_f1")
_UNDEFINED = Stat(value=None, low=None, high=None, n=0)


def ranking_score(response: MetaResponse, ranking: Ranking) -> float | None:
    """The score that ranks a response, None if the judge gave none."""
    if ranking == "score":
        return response.pred_score
    labels = response.pred_labels
    if labels is None or None in labels:
        return None
    return sum(labels) / len(labels)


@dataclass(frozen=True)
class InstructionScores:
    """One instruction's metrics; accuracy and tau_b are None when it is excluded (no edges)."""

    check_tables: tuple[np.ndarray, ...]
    positive_f1: float
    negative_f1: float
    accuracy: float | None
    kendall_tau_b: float | None
    unranked_responses: int
    edges: int
    unscored_edges: int

    @property
    def table(self) -> np.ndarray:
        """Confusion table over all of the instruction's labels."""
        return np.sum(self.check_tables, axis=0)


def _check_tables(record: MetaRecord) -> tuple[np.ndarray, ...]:
    """One gold-vs-predicted confusion table per constraint, over all responses."""
    preds = [r.pred_labels or [None] * len(r.labels) for r in record.responses]
    return tuple(
        confusion_table([r.labels[k] for r in record.responses], [p[k] for p in preds])
        for k in range(len(record.item.checklist))
    )


def score_instruction(
    record: MetaRecord, *, ranking: Ranking = "labels", no_edges: NoEdges = "exclude"
) -> InstructionScores:
    """Verification and ranking metrics of one instruction."""
    tables = _check_tables(record)
    table = np.sum(tables, axis=0)
    scores = {r.response_id: ranking_score(r, ranking) for r in record.responses}
    edges = score_edges(record, by_scores(scores), no_edges)
    return InstructionScores(
        check_tables=tables,
        positive_f1=float(class_f1(table, 1)),
        negative_f1=float(class_f1(table, 0)),
        accuracy=edges.accuracy,
        kendall_tau_b=edges.kendall_tau_b,
        unranked_responses=sum(s is None for s in scores.values()),
        edges=edges.edges,
        unscored_edges=edges.unscored_edges,
    )


class GroupMetrics(BaseModel):
    """Mean metrics of a group of instructions; accuracy/tau_b n = instructions with edges."""

    instructions: int
    positive_f1: Stat
    negative_f1: Stat
    accuracy: Stat
    kendall_tau_b: Stat


class Unscored(BaseModel):
    """What the judge left unscored, each against its total."""

    labels: int
    total_labels: int
    """Both 0 for a judge that gave no labels."""
    responses: int
    """Responses without a ranking score."""
    total_responses: int
    edges: int
    """Edges with an unscored endpoint, counted as predicted ties."""
    total_edges: int
    instructions_without_edges: int
    """Instructions left out of accuracy and tau_b (no_edges="exclude") or scored 0 ("zero")."""


class CritiqueCounts(BaseModel):
    """How the predicted labels were read from the judge's raw critiques."""

    responses: int
    """Responses whose predicted labels came from a critique."""
    unparsed: int
    """Critiques that gave no verdicts (no blocks, marker counts differ, or null)."""
    verdicts: int
    """Constraint verdicts wanted: the checklist length summed over those responses."""
    read: int
    padded: int
    """Missing verdicts padded as passes (the released metric script's rule)."""
    unscored: int
    """Missing verdicts left unscored (also counted in `Unscored.labels`)."""
    dropped: int
    """Blocks beyond the checklist, ignored."""


def critique_counts(records: Sequence[MetaRecord]) -> CritiqueCounts | None:
    """The critique counts summed over all responses; None when no labels came from one."""
    parses = [resp.critique for r in records for resp in r.responses if resp.critique]
    if not parses:
        return None
    return CritiqueCounts(
        responses=len(parses),
        unparsed=sum(not p.parsed for p in parses),
        verdicts=sum(p.read + p.padded + p.unscored for p in parses),
        read=sum(p.read for p in parses),
        padded=sum(p.padded for p in parses),
        unscored=sum(p.unscored for p in parses),
        dropped=sum(p.dropped for p in parses),
    )


class Settings(BaseModel):
    """How the report was computed."""

    ranking: Ranking
    no_edges: NoEdges
    b: int
    seed: int
    level: float


class MetaReport(BaseModel):
    """A judge's IF-RewardBench meta-evaluation."""

    settings: Settings
    overall: GroupMetrics
    by_instruction_type: dict[str, GroupMetrics]
    by_turns: dict[str, GroupMetrics]
    by_constraints: dict[str, GroupMetrics]
    by_category: dict[str, Agreement]
    by_composition: dict[str, Agreement]
    agreement: Agreement | None
    unscored: Unscored
    critiques: CritiqueCounts | None = None
    """Set when predicted labels were read from critiques."""
    pairwise: PairwiseReport | None = None


def turns_bin(turns: int) -> str:
    """Turn-count bin of the released code: 1, 2, 3, 4, >=5."""
    return str(turns) if turns < 5 else ">=5"


def constraints_bin(count: int) -> str:
    """Constraint-count bin of the released code: <=3, 4, 5, 6, >=7."""
    if count <= 3:
        return "<=3"
    return str(count) if count < 7 else ">=7"


def _aggregate(
    groups: Sequence[Scored], verified: bool, b: int, seed: int, level: float
) -> GroupMetrics:
    """Mean of group means of each metric (one group: its plain mean), with intervals; the F1
    statistics are undefined when the judge gave no labels."""
    metrics = (*_F1, *RANKING_METRICS) if verified else RANKING_METRICS
    stats = mean_stats(groups, metrics, b=b, seed=seed, level=level)
    stats = dict.fromkeys(_F1, _UNDEFINED) | stats
    return GroupMetrics(instructions=sum(len(group) for group in groups), **stats)


def _pooled(scored: Scored, prefix: str, b: int, seed: int, level: float) -> dict[str, Agreement]:
    """Agreement over all labels of the constraints in each class named `prefix + name`;
    the bootstrap resamples instructions."""
    per_class: dict[str, list[np.ndarray]] = {}
    for record, scores in scored:
        tables: dict[str, np.ndarray] = {}
        for check, table in zip(record.item.checklist, scores.check_tables, strict=True):
            for name in check.categories:
                if name.startswith(prefix):
                    key = name.removeprefix(prefix)
                    tables[key] = tables.get(key, 0) + table
        for key, table in tables.items():
            per_class.setdefault(key, []).append(table)
    return {
        key: agreement_from_tables(np.stack(tables), b=b, seed=seed, level=level)
        for key, tables in sorted(per_class.items())
    }


def _unscored(scored: Scored, verified: bool) -> Unscored:
    tables = [s.table for _, s in scored] if verified else []
    return Unscored(
        labels=int(sum(t[:, 2].sum() for t in tables)),
        total_labels=int(sum(t.sum() for t in tables)),
        responses=sum(s.unranked_responses for _, s in scored),
        total_responses=sum(len(r.responses) for r, _ in scored),
        edges=sum(s.unscored_edges for _, s in scored),
        total_edges=sum(s.edges for _, s in scored),
        instructions_without_edges=sum(s.edges == 0 for _, s in scored),
    )


def evaluate(
    records: Sequence[MetaRecord],
    *,
    ranking: Ranking = "labels",
    no_edges: NoEdges = "exclude",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> MetaReport:
    """Meta-evaluate the judge whose predictions the records carry against their gold labels."""
    scored = [(r, score_instruction(r, ranking=ranking, no_edges=no_edges)) for r in records]
    verified = any(resp.pred_labels is not None for r in records for resp in r.responses)
    options = {"b": b, "seed": seed, "level": level}

    def each(groups: dict[Hashable, Scored], label: Callable[[int], str] = str) -> dict:
        return {label(k): _aggregate([group], verified, **options) for k, group in groups.items()}

    def pooled(prefix: str) -> dict[str, Agreement]:
        return _pooled(scored, prefix, **options) if verified else {}

    by_type = grouped(scored, lambda r: r.instruction_type)
    turns = grouped(scored, lambda r: min(count_turns(r.item.messages), 5))
    constraints = grouped(scored, lambda r: min(max(len(r.item.checklist), 3), 7))
    tables = np.array([s.table for _, s in scored])
    return MetaReport(
        settings=Settings(ranking=ranking, no_edges=no_edges, **options),
        overall=_aggregate(list(by_type.values()), verified, **options),
        by_instruction_type=each(by_type),
        by_turns=each(turns, turns_bin),
        by_constraints=each(constraints, constraints_bin),
        by_category=pooled(CATEGORY),
        by_composition=pooled(COMPOSITION),
        agreement=agreement_from_tables(tables, **options) if verified else None,
        unscored=_unscored(scored, verified),
        critiques=critique_counts(records),
    )
