"""How a run is audited: one settings object that the CLI builds from its options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from checkbench.choices import FlagKind, SimilarityBackend, UnscoredPolicy
from checkbench.stats import DEFAULT_B, DEFAULT_SEED

FLAG_KINDS: tuple[FlagKind, ...] = get_args(FlagKind)


@dataclass(frozen=True)
class AuditSettings:
    """`judge`: whose verdicts are scored (default: the run's first judge by name; the others
    are compared with it); `similarity`: the cosine at which two checks of an item are
    near-duplicates; `drop`: the flags whose checks the refined checklists leave out;
    `limit`: flagged checks listed in the text output; `policy`: unscored items as the
    protocol's scorer counts them by default (None) or as named; thresholds of the rate flags;
    `negative_p`: the one-sided level at which a negative correlation flags a check."""

    judge: str | None = None
    similarity: float = 0.9
    backend: SimilarityBackend = "auto"
    drop: tuple[FlagKind, ...] = FLAG_KINDS
    limit: int = 20
    policy: UnscoredPolicy | None = None
    disagreement: float = 0.3
    flip: float = 0.3
    unscored: float = 0.2
    negative_p: float = 0.05
    irt_models: int = 5
    b: int = DEFAULT_B
    seed: int = DEFAULT_SEED
