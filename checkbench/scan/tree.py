"""A capability taxonomy as data: named nodes with descriptions, addressed by slash paths.

A path names the nodes from a domain down, e.g. "coding/debugging/memory errors"; "" is the
root, whose children are the domains. Names are free text: a '/' in a name is escaped in its
path ("design/UI\\/UX Design"; path algebra: `checkbench.scan.paths`). Edits are pure:
each returns a new, validated Taxonomy and raises ValueError (TaxonomyError, or pydantic's
ValidationError for a bad name) when it cannot apply. Files are read in checkbench's format or
SCAN's nested one, and written in either (`checkbench.scan.formats`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from rich.markup import escape
from rich.tree import Tree

from checkbench.errors import InputError
from checkbench.inputs import read_input_text
from checkbench.jsonl import write_text_atomic
from checkbench.scan import formats
from checkbench.scan.formats import TaxonomyFormat
from checkbench.scan.paths import (
    TaxonomyError,
    depth_of,
    is_within,
    join_names,
    join_path,
    last_name,
    split_path,
)

Loc = formats.Loc


class Node(BaseModel):
    """One capability: a name unique among its siblings (free text), a description,
    sub-capabilities."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1)
    description: str = ""
    children: list[Node] = Field(default_factory=list)


def _nodes(
    children: list[Node], parent: str = "", loc: Loc = ("domains",)
) -> Iterator[tuple[str, Node, Loc]]:
    """(path, node, JSON location) for every node below `parent`, in preorder."""
    for index, node in enumerate(children):
        path, here = join_path(parent, node.name), (*loc, index)
        yield path, node, here
        yield from _nodes(node.children, path, (*here, "children"))


def _check_structure(domains: list[Node]) -> None:
    """Paths must be unique (no two siblings share a name). A nested tree has no cycles: a
    child named like an ancestor is another node, at another path."""
    seen: set[str] = set()
    for path, _, loc in _nodes(domains):
        if path in seen:
            raise TaxonomyError(f"duplicate path '{path}' (two siblings share a name)", loc)
        seen.add(path)


def _children_of(domains: list[Node], path: str) -> list[Node]:
    """The (mutable) child list of the node at path; the root's children are the domains."""
    children, walked = domains, ""
    for name in split_path(path):
        walked = join_path(walked, name)
        node = next((c for c in children if c.name == name), None)
        if node is None:
            raise TaxonomyError(f"no node at '{walked}'")
        children = node.children
    return children


def _locate(domains: list[Node], path: str) -> tuple[list[Node], int]:
    """The sibling list that holds the node at path, and its index there."""
    names = split_path(path)
    if not names:
        raise TaxonomyError("the root is not a node: give a path")
    siblings = _children_of(domains, join_names(names[:-1]))
    for index, node in enumerate(siblings):
        if node.name == names[-1]:
            return siblings, index
    raise TaxonomyError(f"no node at '{join_names(names)}'")


def _absorb(into: list[Node], incoming: list[Node]) -> None:
    """Add nodes to a child list, merging same-named nodes recursively (existing ones win)."""
    for node in incoming:
        same = next((c for c in into if c.name == node.name), None)
        if same is None:
            into.append(node)
        else:
            _absorb(same.children, node.children)


class Taxonomy(BaseModel):
    """A forest of domains; validated so every path is unique."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = "taxonomy"
    description: str = ""
    domains: list[Node] = Field(default_factory=list)

    @model_validator(mode="after")
    def _valid_tree(self) -> Taxonomy:
        _check_structure(self.domains)
        return self

    def walk(self) -> Iterator[tuple[str, Node]]:
        """(path, node) for every node, parents before children."""
        for path, node, _ in _nodes(self.domains):
            yield path, node

    def paths(self) -> list[str]:
        """Every node's path, in preorder."""
        return [path for path, _ in self.walk()]

    def find(self, path: str) -> Node:
        """The node at path; TaxonomyError when there is none."""
        siblings, index = _locate(self.domains, path)
        return siblings[index]

    def has(self, path: str) -> bool:
        """Whether a node exists at path."""
        try:
            self.find(path)
        except TaxonomyError:
            return False
        return True

    def leaves(self) -> list[str]:
        """Paths of nodes without children, in preorder."""
        return [path for path, node in self.walk() if not node.children]

    def depth(self) -> int:
        """Number of levels, domains counting as 1; 0 when empty."""
        return max(map(depth_of, self.paths()), default=0)

    def _copied(self) -> list[Node]:
        return [domain.model_copy(deep=True) for domain in self.domains]

    def _edited(self, domains: list[Node]) -> Taxonomy:
        _check_structure(domains)
        return self.model_copy(update={"domains": domains})

    def add_child(self, parent: str, name: str, description: str = "") -> Taxonomy:
        """Add a leaf under parent ("" adds a domain)."""
        domains = self._copied()
        _children_of(domains, parent).append(Node(name=name, description=description))
        return self._edited(domains)

    def delete(self, path: str) -> Taxonomy:
        """Remove the node at path with its whole subtree."""
        domains = self._copied()
        siblings, index = _locate(domains, path)
        del siblings[index]
        return self._edited(domains)

    def reparent(self, path: str, new_parent: str) -> Taxonomy:
        """Move the subtree at path under new_parent ("" makes it a domain)."""
        domains = self._copied()
        siblings, index = _locate(domains, path)
        if is_within(new_parent, path):
            raise TaxonomyError(f"cannot move '{path}' under itself ('{new_parent}')")
        node = siblings.pop(index)
        _children_of(domains, new_parent).append(node)
        return self._edited(domains)

    def merge(self, source: str, target: str) -> Taxonomy:
        """Fold source into target: its children join target's (same names merge), it goes away.

        Target keeps its own name and description. Target may be an ancestor of source, never
        source itself or a descendant.
        """
        domains = self._copied()
        siblings, index = _locate(domains, source)
        if is_within(target, source):
            raise TaxonomyError(f"cannot merge '{source}' into itself or its descendant")
        node = siblings.pop(index)
        into_siblings, into_index = _locate(domains, target)
        _absorb(into_siblings[into_index].children, node.children)
        return self._edited(domains)

    def split(self, path: str, parts: Mapping[str, str], assign: Mapping[str, str]) -> Taxonomy:
        """Replace a node by sibling parts (name -> description), in its place.

        `assign` maps each of the node's children to the part that takes it; every child must be
        assigned, so nothing is dropped silently.
        """
        domains = self._copied()
        siblings, index = _locate(domains, path)
        children = {child.name: child for child in siblings[index].children}
        if not parts or set(assign) != set(children) or not set(assign.values()) <= set(parts):
            raise TaxonomyError(
                f"split of '{path}' must assign each child {sorted(children)} "
                f"to one of the parts {sorted(parts)}"
            )
        siblings[index : index + 1] = [
            Node(
                name=name,
                description=description,
                children=[child for key, child in children.items() if assign[key] == name],
            )
            for name, description in parts.items()
        ]
        return self._edited(domains)


class Move(BaseModel):
    """A node that kept its name but now sits under another parent."""

    old: str
    new: str


class DescriptionChange(BaseModel):
    """A node (at its new path) whose description changed."""

    path: str
    old: str
    new: str


class TaxonomyDiff(BaseModel):
    """What changed from one taxonomy to another.

    A move is reported for the top of a moved subtree only; its descendants travel along and are
    not listed again. A name that is ambiguous among the unmatched nodes is reported as removed
    plus added rather than guessed.
    """

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    moved: list[Move] = Field(default_factory=list)
    described: list[DescriptionChange] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """Whether the two taxonomies are the same tree with the same descriptions."""
        return not (self.added or self.removed or self.moved or self.described)


def _match_moves(removed: list[str], added: list[str]) -> tuple[list[Move], dict[str, str]]:
    """Pair removed with added paths: moves by unique name, then their subtrees by suffix."""
    gone, new = list(removed), list(added)
    moves: list[Move] = []
    pairs: dict[str, str] = {}
    for old in removed:
        if old not in gone:
            continue
        name = last_name(old)
        candidates = [p for p in new if last_name(p) == name]
        if len(candidates) != 1 or sum(last_name(p) == name for p in gone) != 1:
            continue
        moves.append(Move(old=old, new=candidates[0]))
        for below in [p for p in gone if is_within(p, old)]:
            target = candidates[0] + below[len(old) :]
            if target in new:
                pairs[below] = target
                gone.remove(below)
                new.remove(target)
    return moves, pairs


def diff(old: Taxonomy, new: Taxonomy) -> TaxonomyDiff:
    """Added, removed and moved nodes, and description changes, from old to new."""
    before, after = dict(old.walk()), dict(new.walk())
    moves, pairs = _match_moves(
        [p for p in before if p not in after], [p for p in after if p not in before]
    )
    pairs |= {p: p for p in before if p in after}
    return TaxonomyDiff(
        added=[p for p in after if p not in pairs.values()],
        removed=[p for p in before if p not in pairs],
        moved=moves,
        described=[
            DescriptionChange(path=b, old=before[a].description, new=after[b].description)
            for a, b in pairs.items()
            if before[a].description != after[b].description
        ],
    )


def json_location(loc: Loc) -> str:
    """A pydantic-style location as a JSONPath: ("domains", 0, "name") -> "$.domains[0].name"."""
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)


def _input_error(exc: ValidationError, path: Path, nested: Mapping[Loc, str]) -> InputError:
    """The first problem of a validation error, located by its JSON path in the file (for a
    SCAN file, by the node as written there)."""
    first = exc.errors()[0]
    loc, message = tuple(first["loc"]), first["msg"]
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, TaxonomyError):
        loc, message = loc + cause.loc, cause.message
    elif isinstance(cause, ValueError):
        message = str(cause)
    field = formats.located(loc, nested) if nested else json_location(loc)
    return InputError(message, path=path, field=field)


def load_taxonomy(path: str | Path) -> Taxonomy:
    """Read and validate a taxonomy JSON file in either format (`checkbench.scan.formats`,
    told apart by content); any problem is an InputError naming the spot."""
    path = Path(path)
    text = read_input_text(path)
    if not text.strip():
        raise InputError("file is empty", path=path)
    try:
        data = formats.parse_json(text, path)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", path=path, line=exc.lineno) from None
    nested: dict[Loc, str] = {}
    if formats.detect_format(data) == "scan":
        data, nested = formats.from_nested(data, name=path.stem, path=path)
    try:
        taxonomy = Taxonomy.model_validate(data)
    except ValidationError as exc:
        raise _input_error(exc, path, nested) from None
    if taxonomy.depth() > formats.MAX_LEVELS:
        raise InputError(
            f"the taxonomy is {taxonomy.depth()} levels deep, more than {formats.MAX_LEVELS}",
            path=path,
        )
    return taxonomy


def dump_taxonomy(taxonomy: Taxonomy, fmt: TaxonomyFormat = "checkbench") -> str:
    """The taxonomy as indented JSON text in a file format ("scan" keeps the names only)."""
    if fmt == "scan":
        nested = formats.to_nested(taxonomy.model_dump()["domains"])
        return json.dumps(nested, ensure_ascii=False, indent=2) + "\n"
    if fmt != "checkbench":
        raise InputError(f"unknown taxonomy format '{fmt}' (known: {', '.join(formats.FORMATS)})")
    return taxonomy.model_dump_json(indent=2) + "\n"


def save_taxonomy(taxonomy: Taxonomy, path: str | Path, fmt: TaxonomyFormat = "checkbench") -> None:
    """Write the taxonomy in a file format, atomically (readers see old or new, never half)."""
    write_text_atomic(path, dump_taxonomy(taxonomy, fmt))


def tree_view(taxonomy: Taxonomy, *, descriptions: bool = True) -> Tree:
    """A rich tree of the taxonomy, names in bold, descriptions dimmed."""

    def label(node: Node) -> str:
        text = f"[bold]{escape(node.name)}[/]"
        if descriptions and node.description:
            text += f" [dim]{escape(node.description)}[/]"
        return text

    def grow(branch: Tree, children: list[Node]) -> None:
        for node in children:
            grow(branch.add(label(node)), node.children)

    root = Tree(f"[bold]{escape(taxonomy.name)}[/]")
    grow(root, taxonomy.domains)
    return root
