"""Rule-based layer pruning (SCAN): collapse single-child nodes, then limit depth below a domain.

How the layer-pruning rule of docs/protocols.md section 4.2 (collapse single-child nodes; keep at
most 3 levels below a domain unless a node has 5 or more children) is read here:

1. Collapse. A node with exactly one child absorbs that child: it keeps its own name and
   description (the broader label stays true for items tagged at either level) and adopts the
   child's children, repeatedly, until no node has exactly one child. Domains collapse too.
2. Depth. A domain is level 0, its children level 1, and so on. Nodes down to level `max_levels`
   (3) always stay. A node at level `max_levels` or deeper keeps its children only if it has at
   least `wide` (5) of them; otherwise its whole subtree folds into it. Kept children face the
   same test, so a wide layer can go one level deeper, a narrow one cannot.

Collapsing runs first because it can only make the tree shallower; the depth limit only turns
nodes into leaves, so it never creates a new single-child node. `Pruned.path_map` sends every
old path to the node that now stands for it, so item tags can follow with `Pruned.remap`.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from checkbench.scan.paths import TaxonomyError, escape_name, join_path, normalize_path
from checkbench.scan.tree import Node, Taxonomy


class Pruned(BaseModel):
    """A pruned taxonomy and where each old path went."""

    taxonomy: Taxonomy
    path_map: dict[str, str]

    def remap(self, paths: Iterable[str]) -> list[str]:
        """Tag paths rewritten onto the pruned taxonomy; duplicates dropped, order kept."""
        moved = []
        for path in map(normalize_path, paths):
            if path not in self.path_map:
                raise TaxonomyError(f"'{path}' is not a path of the taxonomy that was pruned")
            moved.append(self.path_map[path])
        return list(dict.fromkeys(moved))


def _collapse(node: Node, old: str, new: str, path_map: dict[str, str]) -> Node:
    """A copy of node with every single-child chain folded into its top node."""
    path_map[old] = new
    children = node.children
    while len(children) == 1:
        old = join_path(old, children[0].name)
        path_map[old] = new
        children = children[0].children
    kept = [
        _collapse(child, join_path(old, child.name), join_path(new, child.name), path_map)
        for child in children
    ]
    return node.model_copy(update={"children": kept})


def prune(taxonomy: Taxonomy, *, max_levels: int = 3, wide: int = 5) -> Pruned:
    """Collapse single-child nodes, then keep at most max_levels below each domain unless wide."""
    collapsed: dict[str, str] = {}
    domains = [
        _collapse(d, escape_name(d.name), escape_name(d.name), collapsed) for d in taxonomy.domains
    ]
    limited: dict[str, str] = {}

    def limit(node: Node, path: str, level: int, fold_into: str | None) -> Node:
        """A copy of node without the layers the depth rule removes; `fold_into` is the
        surviving ancestor that absorbs this node when a layer above it was cut."""
        survivor = fold_into or path
        limited[path] = survivor
        folding = fold_into is not None or (level >= max_levels and len(node.children) < wide)
        kept = [
            limit(child, join_path(path, child.name), level + 1, survivor if folding else None)
            for child in node.children
        ]
        return node.model_copy(update={"children": [] if folding else kept})

    domains = [limit(d, escape_name(d.name), 0, None) for d in domains]
    pruned = Taxonomy(name=taxonomy.name, description=taxonomy.description, domains=domains)
    return Pruned(taxonomy=pruned, path_map={old: limited[mid] for old, mid in collapsed.items()})
