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


class NavigationSettings(BaseModel):
    """Knobs of navigation; the defaults follow the SCAN paper (threshold 5, top 20%)."""

    min_n: int = Field(5, ge=1)
    threshold: float = Field(5.0, ge=0)
    unstable_fraction: float = Field(0.2, gt=0, le=1)
    level: float = Field(0.95, gt=0, lt=1)
    b: int = Field(DEFAULT_B, ge=1)
    seed: int = DEFAULT_SEED


class Cell(BaseModel):
    """One model at one node; mean and interval are None when nothing was scored."""

    mean: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    unscored: int = 0
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


class Navigation(BaseModel):
    """The navigation result: every node's stats and every model's profile."""

    settings: NavigationSettings
    models: list[str]
    overall: NodeStats
    nodes: list[NodeStats]
    profiles: dict[str, Profile]

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
