"""The PC^2 judge (SCAN): grade against criteria derived by pre-comparing auxiliary answers.

1. Auxiliary answers: each auxiliary model answers the item like a candidate would.
2. Criteria (`criteria`): the judge compares those answers and derives 3-9 criteria with integer
   weights that sum to 100, once per (judge, auxiliary set, item), stored as a record and reused
   for every candidate.
3. Grading (`grading`): pointwise, 0-10 points per criterion weighted to a 0-100 score; pairwise,
   the better answer per criterion weighted to a margin whose sign names the winner. Every pair
   is judged in both orders and stored as `PairVerdict`s, so the meta-evaluation code reads them.
4. Agreement (`agreement`): wins over both orders, position consistency, and pairwise accuracy
   against human preferences.

Anything unusable after the re-asks is recorded with its problem and raw answer and counted as
unscored, never as a score. `evaluation.pc2_evaluate` runs it all over a run store.
"""

from checkbench.scan.pc2.agreement import (
    HumanPreference,
    PairAccuracy,
    human_accuracy,
    load_preferences,
    position_report,
    win_counts,
)
from checkbench.scan.pc2.criteria import (
    CriteriaSet,
    Criterion,
    Mode,
    PC2Settings,
    criteria_answer,
    fix_weights,
)
from checkbench.scan.pc2.evaluation import (
    CRITERIA_KIND,
    PAIR_KIND,
    POINT_KIND,
    PC2Report,
    PC2Result,
    judge_id,
    pc2_evaluate,
)
from checkbench.scan.pc2.grading import PointScore

__all__ = [
    "CRITERIA_KIND",
    "PAIR_KIND",
    "POINT_KIND",
    "CriteriaSet",
    "Criterion",
    "HumanPreference",
    "Mode",
    "PC2Report",
    "PC2Result",
    "PC2Settings",
    "PairAccuracy",
    "PointScore",
    "criteria_answer",
    "fix_weights",
    "human_accuracy",
    "judge_id",
    "load_preferences",
    "pc2_evaluate",
    "position_report",
    "win_counts",
]
