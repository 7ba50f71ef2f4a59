"""What navigation (SCAN) finds: per-node cells and ranks, and each model's profile.

The definitions are in `checkbench.scan.navigate`, which computes these; `checkbench.scan.navviews`
renders them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from checkbench.scan.paths import normalize_path
from checkbench.stats import DEFAULT_B, DEFAULT_SEED

TOO_FEW = "too few"


class Rule(BaseModel):
    """When a rank shift is a finding: its size beyond `threshold` and, unless `level` is None,
    intervals at `level` that separate the model from its comparator."""

    threshold: float = Field(ge=0)
    level: float | None = Field(None, gt=0, lt=1)


class NavigationSettings(BaseModel):
    """Knobs of navigation; the defaults follow the SCAN paper (threshold 5, top 20%).
    `looser_level` is the interval level of the looser rule counted beside the strict one."""

    min_n: int = Field(5, ge=1)
    threshold: float = Field(5.0, ge=0)
    unstable_fraction: float = Field(0.2, gt=0, le=1)
    level: float = Field(0.95, gt=0, lt=1)
    looser_level: float = Field(0.90, gt=0, lt=1)
    b: int = Field(DEFAULT_B, ge=1)
    seed: int = DEFAULT_SEED

    def rules(self) -> list[Rule]:
        """The rule in force first, then the looser ones, a grid: a shift beyond the threshold
        or any shift, each with separate intervals at `level`, at `looser_level` (when lower)
        or with no interval check."""
        thresholds = [self.threshold] + ([0.0] if self.threshold else [])
        levels = [self.level] + ([self.looser_level] if self.looser_level < self.level else [])
        return [Rule(threshold=t, level=v) for t in thresholds for v in [*levels, None]]


class Cell(BaseModel):
    """One model at one node; mean and interval are None when nothing was scored. `unscored`
    counts the node's items without a score, `missing` those of them the model never answered."""

    mean: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    unscored: int = 0
    missing: int = 0
    rank: float | None = None


class NodeStats(BaseModel):
    """All models at one node."""

    path: str
    items: int
    status: Literal["ranked", "too few"]
    spread: float | None = None
    cells: dict[str, Cell]


class Finding(BaseModel):
    """A strength or weakness: the model's displacement at a node and the model it beat/trailed."""

    path: str
    rank: float
    overall_rank: float
    shift: float
    cell: Cell
    versus: str
    versus_cell: Cell


class Instability(BaseModel):
    """How unevenly a model ranks across one parent's children."""

    path: str
    std: float
    children: int
    unstable: bool


class Profile(BaseModel):
    """One model's map: overall cell, strengths, weaknesses, parent instability."""

    model: str
    overall: Cell
    strengths: list[Finding]
    weaknesses: list[Finding]
    instability: list[Instability]


class RuleCount(BaseModel):
    """How many strengths and weaknesses each model has under one rule."""

    rule: Rule
    strengths: dict[str, int]
    weaknesses: dict[str, int]


class Navigation(BaseModel):
    """The navigation result: every node's stats and every model's profile, the items that carry
    no tag of the hierarchy (counted overall only), and the findings' count per rule (the
    rule in force first, then looser ones)."""

    settings: NavigationSettings
    models: list[str]
    overall: NodeStats
    nodes: list[NodeStats]
    profiles: dict[str, Profile]
    untagged: int = 0
    rule_counts: list[RuleCount] = []

    def node(self, path: str) -> NodeStats:
        """The stats of the node at path ("" is overall)."""
        path = normalize_path(path)
        if not path:
            return self.overall
        for node in self.nodes:
            if node.path == path:
                return node
        raise KeyError(path)

    def most_divergent(self, k: int = 10) -> list[NodeStats]:
        """The k ranked nodes where the best and worst model differ most."""
        ranked = [node for node in self.nodes if node.spread is not None]
        return sorted(ranked, key=lambda node: -(node.spread or 0.0))[:k]
