"""Navigation (SCAN): where in the taxonomy each model is strong, weak or uneven.

Input: per model, item id -> item score in [0, 1] (None = unscored), and per item its taxonomy
paths (`Item.tags["taxonomy"]`); a path counts for the node and all its ancestors, and an item
counts once per node. Definitions, all per node (the root "" is the whole item set, "overall"):

- Cell: a model's mean score over its scored items at the node, n, unscored count (of which
  how many it never answered), and a seeded percentile bootstrap interval (`stats.mean_ci`).
  Where the items are a protocol's whose score is a mean of strata means (FB-Bench: of its
  (scenario, task) groups; `registry.ScoreStrata`), the cell is that mean of the node's strata
  (`stats.macro_mean_ci`), so ranks are by the protocol's score; `Navigation.ranked_by` says
  which.
- Ranked or "too few": a node is ranked only when every model has at least `min_n` scored items
  there, so every rank is over the same set of models as the overall rank. Ranks: 1 = best,
  ties (means equal to 12 decimals) share the average rank.
- Strength / weakness of model M at a ranked node: shift = overall rank - rank here. A strength
  needs shift > threshold, a weakness shift < -threshold, and in both the intervals must
  separate: the comparator is the other model whose rank here is nearest M's overall rank (the
  model now standing where M usually stands; ties go to the one nearer M's rank here, then by
  name). A strength needs M's lower bound above the comparator's upper bound, a weakness M's
  upper bound below the comparator's lower bound. Non-overlap of two 95% intervals is a
  conservative test, so a flagged node is a displacement beyond the noise.
- Looser rules: beside the rule in force, the findings are counted under rules that relax one
  part of it (`NavigationSettings.rules`): the shift alone, intervals at 90%, separate intervals
  at any rank shift; so a reader sees whether the strict rule hides differences.
- Instability of a parent for M: the population standard deviation (ddof=0) of M's ranks at its
  ranked children (needs 2+). Per model, the parents in the top `unstable_fraction` (20%) are
  unstable: the ceil(fraction * parents) largest values, ties at the cut included, zero never.
- Spread of a ranked node: best model mean minus worst; `Navigation.most_divergent` sorts by it.

`navigate_items` runs navigation over a run's items on the pruned taxonomy, moving each tag to
the node that now stands for it; items loaded from SCAN query files, which carry SCAN's type
tags instead of paths, are placed by `scan.queries.type_tag_paths`. This module holds the
result's models and their computation; `scan.navigation_view` renders them in the terminal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field, computed_field

from checkbench.errors import InputError
from checkbench.registry import score_strata
from checkbench.scan.domains import TAXONOMY_FACET
from checkbench.scan.paths import TaxonomyError, lineage, normalize_path, parent_of, split_path
from checkbench.scan.prune import prune
from checkbench.scan.queries import META_KEY as SCAN_META
from checkbench.scan.queries import type_tag_paths
from checkbench.scan.tree import Taxonomy
from checkbench.schema import Item
from checkbench.stats import DEFAULT_B, DEFAULT_SEED, Estimate, macro_mean_ci, mean_ci
from checkbench.stats.ranking import ranks as average_ranks

TOO_FEW = "too few"
ITEM_MEAN = "the mean of item scores"


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


class _AtNode(BaseModel):
    """Something at a taxonomy node: `path` is its canonical string (`scan.paths`: a '/' in a
    name escaped), `names` the names along it, from the domain down, as JSON shows them."""

    path: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def names(self) -> list[str]:
        """The names along the path, from the domain down ([] for the root)."""
        return split_path(self.path)


class NodeStats(_AtNode):
    """All models at one node."""

    items: int
    status: Literal["ranked", "too few"]
    spread: float | None = None
    cells: dict[str, Cell]


class Finding(_AtNode):
    """A strength or weakness: the model's displacement at a node and the model it beat/trailed."""

    rank: float
    overall_rank: float
    shift: float
    cell: Cell
    versus: str
    versus_cell: Cell


class Instability(_AtNode):
    """How unevenly a model ranks across one parent's children."""

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
    ranked_by: str = ITEM_MEAN
    """What the cells' means, hence the ranks, are: the plain mean of items, or the score of the
    protocol whose items these are."""

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


Scores = Mapping[str, Mapping[str, float | None]]
Bounds = Mapping[str, tuple[float, float]]


def taxonomy_tags(items: Iterable[Item], facet: str = TAXONOMY_FACET) -> dict[str, list[str]]:
    """Item id -> its taxonomy paths, the `tags` input of `navigate`."""
    return {item.id: item.tag(facet) for item in items}


def top_fraction(values: Mapping[str, float], fraction: float) -> set[str]:
    """Keys among the top `fraction` of values: the ceil(fraction * len) largest, ties at the
    cut included, zero values never."""
    if not values:
        return set()
    k = max(1, math.ceil(fraction * len(values) - 1e-9))
    cut = sorted(values.values(), reverse=True)[k - 1]
    return {key for key, value in values.items() if value >= cut and value > 0}


def _check_scores(scores: Scores, items: set[str]) -> None:
    """Every score belongs to a known item and lies in [0, 1] (NaN is rejected too)."""
    if not scores:
        raise InputError("no model scores to navigate")
    for model, by_item in scores.items():
        for item_id, score in by_item.items():
            if item_id not in items:
                raise InputError(f"model '{model}' has a score for unknown item '{item_id}'")
            if score is not None and not 0.0 <= score <= 1.0:
                raise InputError(
                    f"score {score} of model '{model}' on item '{item_id}' is not in [0, 1]"
                )


def _tag_path(item_id: str, raw: str, known: set[str] | None) -> str:
    """A tag's canonical path, checked against the taxonomy when one is given."""
    try:
        path = normalize_path(raw)
    except TaxonomyError as exc:
        raise InputError(f"item '{item_id}': {exc}", field="tags.taxonomy") from None
    if not path or (known is not None and path not in known):
        raise InputError(f"item '{item_id}': '{raw}' is not a taxonomy path", field="tags.taxonomy")
    return path


def _members(tags: Mapping[str, Sequence[str]], taxonomy: Taxonomy | None) -> dict[str, list[str]]:
    """Sorted item ids under each node, in taxonomy preorder (or path order without one)."""
    members: dict[str, set[str]] = {path: set() for path in taxonomy.paths()} if taxonomy else {}
    known = set(members) if taxonomy else None
    for item_id, paths in tags.items():
        for raw in paths:
            for node in lineage(_tag_path(item_id, raw, known)):
                members.setdefault(node, set()).add(item_id)
    order = list(members) if taxonomy else sorted(members, key=split_path)
    return {path: sorted(members[path]) for path in order}


def _scored(ids: Sequence[str], by_item: Mapping[str, float | None]) -> list[float]:
    return [s for i in ids if (s := by_item.get(i)) is not None]


Strata = Mapping[str, str]
"""Item id -> the stratum its score is averaged within (see the module docstring)."""


def _estimate(
    ids: Sequence[str],
    by_item: Mapping[str, float | None],
    settings: NavigationSettings,
    level: float,
    strata: Strata | None,
) -> Estimate:
    """The mean over the scored items `ids` with its interval: plain, or of strata means."""
    if strata is None:
        return mean_ci(_scored(ids, by_item), b=settings.b, seed=settings.seed, level=level)
    groups: dict[str, list[float]] = {}
    for item_id in ids:
        if (score := by_item.get(item_id)) is not None:
            groups.setdefault(strata[item_id], []).append(score)
    return macro_mean_ci(list(groups.values()), b=settings.b, seed=settings.seed, level=level)


def _cell(
    ids: Sequence[str],
    by_item: Mapping[str, float | None],
    settings: NavigationSettings,
    strata: Strata | None = None,
) -> Cell:
    """A model's cell at a node of items `ids`."""
    missing = sum(item_id not in by_item for item_id in ids)
    est = _estimate(ids, by_item, settings, settings.level, strata)
    if not est.n:
        return Cell(unscored=len(ids), missing=missing)
    return Cell(
        mean=est.value,
        low=est.low if est.has_interval else None,
        high=est.high if est.has_interval else None,
        n=est.n,
        unscored=len(ids) - est.n,
        missing=missing,
    )


def _node_stats(
    path: str,
    ids: list[str],
    scores: Scores,
    settings: NavigationSettings,
    strata: Strata | None = None,
) -> NodeStats:
    """Cells of every model at one node, ranked when every model has min_n scored items."""
    cells = {model: _cell(ids, by_item, settings, strata) for model, by_item in scores.items()}
    if any(cell.n < settings.min_n for cell in cells.values()):
        return NodeStats(path=path, items=len(ids), status=TOO_FEW, cells=cells)
    means = {model: round(cell.mean, 12) for model, cell in cells.items() if cell.mean is not None}
    ranks = average_ranks(means)
    ranked = {
        model: cell.model_copy(update={"rank": ranks[model]}) for model, cell in cells.items()
    }
    spread = max(means.values()) - min(means.values())
    return NodeStats(path=path, items=len(ids), status="ranked", spread=spread, cells=ranked)


def _rank(cell: Cell) -> float:
    """The rank of a cell at a ranked node."""
    assert cell.rank is not None
    return cell.rank


def _interval(cell: Cell) -> tuple[float, float]:
    """The interval of a cell at a ranked node, where every model has scored items; NaN bounds
    (never separate) where it has too few items for one."""
    assert cell.mean is not None
    if cell.low is None or cell.high is None:
        return float("nan"), float("nan")
    return cell.low, cell.high


def _bounds(
    node: NodeStats,
    ids: Sequence[str],
    scores: Scores,
    settings: NavigationSettings,
    level: float | None,
    strata: Strata | None = None,
) -> Bounds | None:
    """Every model's interval at `level` at a ranked node (the cells' own at settings.level),
    or None when the rule checks no intervals."""
    if level is None:
        return None
    if level == settings.level:
        return {model: _interval(cell) for model, cell in node.cells.items()}
    bounds: dict[str, tuple[float, float]] = {}
    for model, by_item in scores.items():
        est = _estimate(ids, by_item, settings, level, strata)
        bounds[model] = (est.low, est.high)
    return bounds


def _comparator(node: NodeStats, model: str, position: float) -> str:
    """The other model whose rank here is nearest `position` (ties: nearer this model, name)."""
    own = _rank(node.cells[model])

    def distance(other: str) -> tuple[float, float, str]:
        rank = _rank(node.cells[other])
        return abs(rank - position), abs(rank - own), other

    return min((m for m in node.cells if m != model), key=distance)


def _finding(
    node: NodeStats, model: str, overall_rank: float, threshold: float, bounds: Bounds | None
) -> Finding | None:
    """The strength or weakness of model at node, or None when the shift is within `threshold`
    or (with `bounds`) the intervals of model and comparator overlap."""
    cell = node.cells[model]
    rank = _rank(cell)
    shift = overall_rank - rank
    if abs(shift) <= threshold:
        return None
    versus = _comparator(node, model, overall_rank)
    if bounds is not None:
        (low, high), (other_low, other_high) = bounds[model], bounds[versus]
        if not (low > other_high if shift > 0 else high < other_low):
            return None
    return Finding(
        path=node.path,
        rank=rank,
        overall_rank=overall_rank,
        shift=shift,
        cell=cell,
        versus=versus,
        versus_cell=node.cells[versus],
    )


def _findings(
    rule: Rule,
    overall: NodeStats,
    nodes: list[NodeStats],
    members: Mapping[str, Sequence[str]],
    scores: Scores,
    settings: NavigationSettings,
    strata: Strata | None = None,
) -> dict[str, list[Finding]]:
    """Per model, its findings under `rule` at the ranked nodes (none when overall is too few)."""
    found: dict[str, list[Finding]] = {model: [] for model in scores}
    for node in nodes:
        if node.status != "ranked":
            continue
        bounds = _bounds(node, members[node.path], scores, settings, rule.level, strata)
        for model, own in overall.cells.items():
            if own.rank is not None and (
                finding := _finding(node, model, own.rank, rule.threshold, bounds)
            ):
                found[model].append(finding)
    return found


def _instability(model: str, nodes: list[NodeStats], fraction: float) -> list[Instability]:
    """Std of the model's ranks over each parent's ranked children, most uneven first."""
    ranks: dict[str, list[float]] = {}
    for node in nodes:
        rank, parent = node.cells[model].rank, parent_of(node.path)
        if rank is not None and parent:
            ranks.setdefault(parent, []).append(rank)
    stds = {parent: float(np.std(r)) for parent, r in ranks.items() if len(r) >= 2}
    unstable = top_fraction(stds, fraction)
    rows = [
        Instability(path=p, std=std, children=len(ranks[p]), unstable=p in unstable)
        for p, std in stds.items()
    ]
    return sorted(rows, key=lambda row: -row.std)


def _profile(
    model: str,
    overall: NodeStats,
    found: list[Finding],
    nodes: list[NodeStats],
    settings: NavigationSettings,
) -> Profile:
    """One model's findings under the rule in force, and its unstable parents."""
    return Profile(
        model=model,
        overall=overall.cells[model],
        strengths=sorted((f for f in found if f.shift > 0), key=lambda f: -f.shift),
        weaknesses=sorted((f for f in found if f.shift < 0), key=lambda f: f.shift),
        instability=_instability(model, nodes, settings.unstable_fraction),
    )


def _rule_count(rule: Rule, found: Mapping[str, list[Finding]]) -> RuleCount:
    return RuleCount(
        rule=rule,
        strengths={model: sum(f.shift > 0 for f in fs) for model, fs in found.items()},
        weaknesses={model: sum(f.shift < 0 for f in fs) for model, fs in found.items()},
    )


def navigate(
    scores: Scores,
    tags: Mapping[str, Sequence[str]],
    *,
    taxonomy: Taxonomy | None = None,
    settings: NavigationSettings | None = None,
    strata: Strata | None = None,
    ranked_by: str = ITEM_MEAN,
) -> Navigation:
    """Per-node cells and ranks, each model's strengths, weaknesses and unstable parents, and
    how many findings each of `settings.rules()` gives.

    `tags` lists every evaluated item (an item with no paths still counts overall); with a
    taxonomy, every tag must be one of its paths and all its nodes are reported. With `strata`
    (every item's) a cell is the mean of its strata means, which `ranked_by` names.
    """
    settings = settings or NavigationSettings()
    _check_scores(scores, set(tags))
    members = _members(tags, taxonomy)
    overall = _node_stats("", sorted(tags), scores, settings, strata)
    nodes = [_node_stats(path, ids, scores, settings, strata) for path, ids in members.items()]
    rules = settings.rules()
    found = [_findings(rule, overall, nodes, members, scores, settings, strata) for rule in rules]
    return Navigation(
        settings=settings,
        models=list(scores),
        overall=overall,
        nodes=nodes,
        profiles={m: _profile(m, overall, found[0][m], nodes, settings) for m in scores},
        untagged=sum(not paths for paths in tags.values()),
        rule_counts=[
            _rule_count(rule, by_model) for rule, by_model in zip(rules, found, strict=True)
        ],
        ranked_by=ranked_by,
    )


def protocol_ranking(items: Sequence[Item]) -> dict[str, Any]:
    """The `strata` and `ranked_by` of `navigate` that rank by the score of the protocol whose
    items these are (`registry.score_strata`); none (the mean of items) for other items."""
    protocol = score_strata(items)
    if protocol is None:
        return {}
    return {
        "strata": {item.id: protocol.stratum(item.tags) or "" for item in items},
        "ranked_by": protocol.ranked_by,
    }


def _item_paths(item: Item, taxonomy: Taxonomy) -> list[str]:
    """The item's taxonomy paths; an item from a SCAN query file that has none (no "taxonomy"
    facet at all) is placed by its type tags."""
    if TAXONOMY_FACET in item.tags or SCAN_META not in item.meta:
        return item.tag(TAXONOMY_FACET)
    return type_tag_paths(item, taxonomy)


def navigate_items(
    items: Iterable[Item],
    scores: Scores,
    taxonomy: Taxonomy,
    *,
    settings: NavigationSettings | None = None,
    pruned: bool = True,
    strata: Strata | None = None,
    ranked_by: str = ITEM_MEAN,
) -> Navigation:
    """Navigation of a run's items, whose tags are paths of `taxonomy` (or, for an item from a
    SCAN query file without paths, its type tags). With `pruned` it runs on the pruned taxonomy
    and every tag moves to the node that now stands for it (pruning an already pruned taxonomy
    changes nothing)."""
    tags = {item.id: _item_paths(item, taxonomy) for item in items}
    if pruned:
        result = prune(taxonomy)
        moved: dict[str, list[str]] = {}
        for item_id, paths in tags.items():
            try:
                moved[item_id] = result.remap(paths)
            except TaxonomyError as exc:
                raise InputError(f"item '{item_id}': {exc}", field="tags.taxonomy") from None
        tags, taxonomy = moved, result.taxonomy
    return navigate(
        scores, tags, taxonomy=taxonomy, settings=settings, strata=strata, ranked_by=ranked_by
    )
