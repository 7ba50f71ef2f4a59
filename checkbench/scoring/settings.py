"""How a run is scored: one settings object that the CLI builds from its options and the API,
the evaluation flow and a protocol's scorer take as it is."""

from __future__ import annotations

from dataclasses import dataclass

from checkbench.choices import ChecklistChoice, ScoreSource, ScoringProtocol, UnscoredPolicy
from checkbench.stats import DEFAULT_SEED


@dataclass(frozen=True)
class ScoringSettings:
    """`policy`: unscored items count as 0 or are left out; `source`: FB-Bench scores from the
    verdicts or from imported files' own scores; `seed`: the bootstrap's; `protocol`: whose
    scores a run gives ("auto": FB-Bench when every item carries its tags, else Conv-to-Bench);
    `checklist`: the items' checklists, or the refined ones an audit stored in the run."""

    policy: UnscoredPolicy = "zero"
    source: ScoreSource = "verdicts"
    seed: int = DEFAULT_SEED
    protocol: ScoringProtocol = "auto"
    checklist: ChecklistChoice = "full"
