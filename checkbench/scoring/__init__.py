"""Scores from verdicts: item rules (`items`), means over items and tag groups with bootstrap
intervals (`means`), and the settings a run is scored with (`settings`). The names the
protocols and the report use are importable from the package."""

from checkbench.choices import UnscoredPolicy
from checkbench.scoring.items import (
    ItemScores,
    Scores,
    column_scores,
    item_score,
    most_samples,
    rule_score,
    score_responses,
    single_judge,
    store_scores,
)
from checkbench.scoring.layout import ScoreLayout
from checkbench.scoring.means import (
    GroupScore,
    facet_breakdown,
    group_by_facet,
    macro_summarize,
    model_summaries,
    percent,
    summarize,
)
from checkbench.scoring.settings import ScoringSettings

__all__ = [
    "GroupScore",
    "ItemScores",
    "ScoreLayout",
    "Scores",
    "ScoringSettings",
    "UnscoredPolicy",
    "column_scores",
    "facet_breakdown",
    "group_by_facet",
    "item_score",
    "macro_summarize",
    "model_summaries",
    "most_samples",
    "percent",
    "rule_score",
    "score_responses",
    "single_judge",
    "store_scores",
    "summarize",
]
