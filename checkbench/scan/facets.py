"""A tag hierarchy as a taxonomy: navigate results by facets items already carry (e.g. FB-Bench's
task and subtask) without copying them into taxonomy tags.

Facets name levels from the top: with `task,subtask`, every task value becomes a domain and every
subtask value seen with it a child, and an item sits at each task/subtask pair it carries (at its
task alone when it has no subtask).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from checkbench.errors import InputError
from checkbench.scan.paths import join_names
from checkbench.scan.tree import Node, Taxonomy
from checkbench.schema import Item


def _name(value: str, facet: str) -> str:
    """A tag value as a node name."""
    return value.strip() or f"({facet} empty)"


def _paths(item: Item, facets: Sequence[str]) -> list[tuple[str, ...]]:
    """The item's chains of facet values, from the top facet down as far as it has values."""
    chains: list[tuple[str, ...]] = [()]
    for facet in facets:
        values = [_name(value, facet) for value in item.tag(facet)]
        if not values:
            break
        chains = [(*chain, value) for chain in chains for value in values]
    return [chain for chain in chains if chain]


def facet_taxonomy(
    items: Iterable[Item], facets: Sequence[str]
) -> tuple[Taxonomy, dict[str, list[str]]]:
    """The hierarchy the facets' values form over the items, and each item's paths in it."""
    if not facets:
        raise InputError("name at least one facet, e.g. --facets task,subtask", field="facets")
    tree: dict[str, dict] = {}
    tags: dict[str, list[str]] = {}
    for item in items:
        chains = _paths(item, facets)
        for chain in chains:
            level = tree
            for name in chain:
                level = level.setdefault(name, {})
        tags[item.id] = [join_names(chain) for chain in chains]
    if not any(tags.values()):
        raise InputError(
            f"no item has a value for facet '{facets[0]}' (facets given: {', '.join(facets)})",
            field="facets",
        )

    def nodes(level: dict[str, dict]) -> list[Node]:
        return [Node(name=name, children=nodes(below)) for name, below in sorted(level.items())]

    return Taxonomy(name=" / ".join(facets), domains=nodes(tree)), tags
