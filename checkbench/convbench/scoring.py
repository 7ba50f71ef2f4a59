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

from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from checkbench.choices import CheckMode
from checkbench.convbench.checklist import INSTRUCTION
from checkbench.convbench.rank_agreement import RankAgreement, rank_agreement
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import (
    GroupScore,
    UnscoredPolicy,
    model_summaries,
    most_samples,
    score_responses,
)
from checkbench.stats import DEFAULT_B, DEFAULT_SEED


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
        return item
    checks = [check for check in item.checklist if check.source == INSTRUCTION]
    if not checks:
        return None
    if item.rule == "weighted":
        total = sum(check.weight or 0.0 for check in checks)
        if total > 0:
            checks = [c.model_copy(update={"weight": (c.weight or 0.0) / total}) for c in checks]
    return item.model_copy(update={"checklist": checks})


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
    summaries = model_summaries(kept, responses, verdicts, policy=policy, b=b, seed=seed)
    samples = most_samples(responses)
    models = [
        ModelScore(model=model, samples=samples[model], **score.model_dump())
        for model, score in summaries.items()
    ]
    models.sort(key=lambda row: (row.score is None, -(row.score or 0.0), row.model))
    agreement = None
    if reference is not None:
        table = score_responses(kept, responses, verdicts)
        agreement = rank_agreement(_with_policy(table, policy), reference, b=b, seed=seed)
    return BenchScores(
        judge=judge,
        checks=checks,
        policy=policy,
        items=len(kept),
        items_without_checks=len(all_items) - len(kept),
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
