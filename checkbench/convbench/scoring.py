"""Scores of a built benchmark (Conv-to-Bench, docs/protocols.md sections 2.6 and 2.7).

Each requirement is judged yes or no; an instruction's score is the mean of its requirements
(its item rule); a model's score is the mean over instructions, with a bootstrap interval that
resamples instructions, each with all its requirements (a cluster bootstrap; B = 1000, fixed
seed). Two modes choose the requirements: "instruction" keeps only those derived from the
instruction (source "instruction"), "all" keeps every one. An item left without requirements
in a mode is left out and counted. Under a "weighted" rule, the kept checks' weights are
rescaled to sum to 1.

With a reference leaderboard, the model ranking's Spearman and Kendall correlations with it
are added (see `rank_agreement`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, partial

from pydantic import BaseModel, Field

from checkbench.choices import CheckMode
from checkbench.convbench.checklist import INSTRUCTION
from checkbench.convbench.rank_agreement import RankAgreement, rank_agreement
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import (
    GroupScore,
    ItemScores,
    UnscoredPolicy,
    column_scores,
    most_samples,
    rule_score,
    score_responses,
    summarize,
)
from checkbench.scoring.refined import refine_rows
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.store import RunStore


class ModelScore(GroupScore):
    """One model's mean score (0-100) over instructions, with its 95% interval; `samples`:
    the most answers it gave one instruction (`--samples K`, each scored by their mean), left
    out of the JSON when 1."""

    model: str
    samples: int = Field(default=1, exclude_if=lambda samples: samples == 1)


class BenchScores(BaseModel):
    """Model scores in one check mode, best first, and the agreement with a reference."""

    judge: str
    checks: CheckMode
    policy: UnscoredPolicy
    items: int
    items_without_checks: int
    models: list[ModelScore]
    reference: RankAgreement | None = None


def restrict_checks(item: Item, mode: CheckMode) -> Item | None:
    """The item with only the checks of the mode (None if none is left)."""
    if mode == "all":
        return item if item.checklist else None
    checks = [check for check in item.checklist if check.source == INSTRUCTION]
    if not checks:
        return None
    if item.rule == "weighted" and (weights := _rescaled([c.weight for c in checks])):
        checks = [c.model_copy(update={"weight": w}) for c, w in zip(checks, weights, strict=True)]
    return item.model_copy(update={"checklist": checks})


def _rescaled(weights: Sequence[float | None]) -> list[float] | None:
    """A weighted item's kept weights rescaled to sum to 1 (None when they sum to 0)."""
    total = sum(weight or 0.0 for weight in weights)
    return [(weight or 0.0) / total for weight in weights] if total > 0 else None


def bench_scores(
    items: Iterable[Item],
    responses: Iterable[Response],
    verdicts: Iterable[Verdict],
    *,
    judge: str,
    checks: CheckMode = "all",
    policy: UnscoredPolicy = "exclude",
    reference: Mapping[str, float] | None = None,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> BenchScores:
    """Per-model scores of one judge's verdicts in a check mode, optionally with the rank
    agreement with a reference leaderboard."""
    all_items = list(items)
    kept = [restricted for item in all_items if (restricted := restrict_checks(item, checks))]
    check_ids = {(item.id, check.id) for item in kept for check in item.checklist}
    ids = {item.id for item in kept}
    responses = [response for response in responses if response.item_id in ids]
    verdicts = [v for v in verdicts if (v.item_id, v.check_id) in check_ids]
    index = {item.id: position for position, item in enumerate(all_items)}
    samples = most_samples(responses)
    table = {
        model: ItemScores.of(scores, index, samples[model])
        for model, scores in sorted(score_responses(kept, responses, verdicts).items())
    }
    counts = (len(kept), len(all_items) - len(kept))
    order = [item.id for item in all_items]
    return _scores(table, order, counts, judge, checks, policy, reference, b, seed)


def store_bench_scores(
    store: RunStore,
    judge: str,
    *,
    checks: CheckMode = "all",
    policy: UnscoredPolicy = "exclude",
    reference: Mapping[str, float] | None = None,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    checklists: Mapping[int, str] | None = None,
) -> BenchScores:
    """`bench_scores` of a run store's items, responses and `judge`'s verdicts, read in
    columns: no body is parsed, and memory holds a few numbers per response. With
    `checklists` (`scoring.refined`), the refined items are scored by their kept checks."""
    source = None if checks == "all" else INSTRUCTION
    found = refine_rows(store.sample_verdicts(judge, source=source), checklists)
    rows = [row for row in found if row[3] != "[]"]
    score = cache(partial(_kept_score, checks))
    table = column_scores(rows, [score(rule, kept, found) for _, _, rule, kept, found in rows])
    kept = store.count_checked_items(source)
    counts = (kept, store.count_items() - kept)
    order: Sequence[str] = []
    if reference is not None:
        order = [item_id for item_id, *_ in store.item_columns()]
    return _scores(table, order, counts, judge, checks, policy, reference, b, seed)


def _kept_score(mode: CheckMode, rule: str, checks: str, verdicts: str) -> float | None:
    """A sample's score from its item's kept (check id, weight) pairs as stored and the
    judge's verdicts on it ({check id: 1, 0 or null}), as `restrict_checks` keeps them:
    verdicts on other checks left out, a weighted item's kept weights rescaled to sum to 1."""
    pairs = json.loads(checks)
    passed = json.loads(verdicts)
    weights = [weight for _, weight in pairs]
    if mode != "all" and rule == "weighted":
        weights = _rescaled(weights) or weights
    return rule_score(rule, weights, [passed.get(check) for check, _ in pairs])


def _scores(
    table: Mapping[str, ItemScores],
    order: Sequence[str],
    counts: tuple[int, int],
    judge: str,
    checks: CheckMode,
    policy: UnscoredPolicy,
    reference: Mapping[str, float] | None,
    b: int,
    seed: int,
) -> BenchScores:
    """The scores from each model's item scores (`order`: the item ids by position, needed
    with a reference) and the (kept, left without checks) item counts."""
    models = [
        ModelScore(
            model=model,
            samples=scores.samples,
            **summarize(scores.values, policy, b=b, seed=seed).model_dump(),
        )
        for model, scores in table.items()
    ]
    models.sort(key=lambda row: (row.score is None, -(row.score or 0.0), row.model))
    agreement = None
    if reference is not None:
        by_item = {model: scores.as_scores(order) for model, scores in table.items()}
        agreement = rank_agreement(_with_policy(by_item, policy), reference, b=b, seed=seed)
    return BenchScores(
        judge=judge,
        checks=checks,
        policy=policy,
        items=counts[0],
        items_without_checks=counts[1],
        models=models,
        reference=agreement,
    )


def _with_policy(
    table: Mapping[str, Mapping[str, float | None]], policy: UnscoredPolicy
) -> dict[str, dict[str, float | None]]:
    """Unscored items as 0 ("zero") or left out (None, "exclude"), per model."""
    if policy == "exclude":
        return {model: dict(scores) for model, scores in table.items()}
    return {
        model: {item: 0.0 if score is None else score for item, score in scores.items()}
        for model, scores in table.items()
    }
