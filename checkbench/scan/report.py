"""The capability taxonomy section (SCAN navigation): per node, each model's score, interval
and rank, and each model's strengths, weaknesses and unstable parents.

Sources, per judge: a stored `Navigation` (record kind "navigation", key = judge), else one
computed here from the items' `taxonomy` tags and the judge's item scores (unscored items are
left out and counted, whatever the leaderboard's policy). With a tree (`--taxonomy FILE`, else
the record of kind "taxonomy", key "tree") it is computed as `checkbench scan navigate`
does (`navigate_items`, on the pruned tree), which adds node descriptions and the nodes no item
reached; tags must then be paths of that tree.
"""

from __future__ import annotations

from typing import Any

from checkbench.errors import InputError
from checkbench.report.run import RunData
from checkbench.scan.domains import TAXONOMY_FACET
from checkbench.scan.navigation import (
    Navigation,
    navigate,
    navigate_items,
    protocol_ranking,
    taxonomy_tags,
)
from checkbench.scan.paths import label
from checkbench.scan.prune import prune
from checkbench.scan.tree import Taxonomy
from checkbench.store import RecordKind

NAVIGATION = RecordKind("navigation", Navigation)
"""A judge's stored navigation scores, by judge."""
TAXONOMY = RecordKind("taxonomy", Taxonomy)
"""The run's taxonomy tree, under TREE_KEY."""
TREE_KEY = "tree"


def _navigation(run: RunData, judge: str, tree: Taxonomy | None) -> Navigation:
    scores, by = run.scores[judge], protocol_ranking(run.items)
    if tree is None:
        return navigate(scores, taxonomy_tags(run.items), **by)
    return navigate_items(run.items, scores, tree, **by)


def taxonomy_section(run: RunData) -> dict[str, Any] | None:
    """Navigation per judge with node descriptions; None when the run has no taxonomy data."""
    problems: list[str] = []
    tree = run.options.taxonomy or run.store.records(
        TAXONOMY, only=TREE_KEY, unreadable=problems
    ).get(TREE_KEY)
    stored = run.store.records(NAVIGATION, only=run.options.judge, unreadable=problems)
    tagged = any(item.tag(TAXONOMY_FACET) for item in run.items)
    boards = [
        {"judge": key, "source": "stored", **navigation.model_dump(mode="json")}
        for key, navigation in stored.items()
    ]
    for judge in run.judges:
        if judge in stored or not tagged or not run.scores[judge]:
            continue
        try:
            navigation = _navigation(run, judge, tree)
        except InputError as exc:
            problems.append(f"navigation for judge '{judge}' not computed: {exc}")
            continue
        boards.append({"judge": judge, "source": "computed", **navigation.model_dump(mode="json")})
    if not boards and not problems:
        return None
    shown = prune(tree).taxonomy if tree else None
    descriptions = {path: node.description for path, node in shown.walk()} if shown else {}
    return {"navigations": boards, "descriptions": descriptions, "problems": problems}


def tag_labels(run: RunData) -> dict[str, dict[str, str]] | None:
    """How people read the run's taxonomy tags (facet -> tag -> its names joined by " › "):
    a tag is an escaped path, which only SCAN's `paths` reads. None when no item has one."""
    tags = {tag for item in run.items for tag in item.tag(TAXONOMY_FACET)}
    return {TAXONOMY_FACET: {tag: label(tag) for tag in sorted(tags)}} if tags else None
