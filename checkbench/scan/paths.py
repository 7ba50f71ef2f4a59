"""Paths that address taxonomy nodes: "coding/debugging/memory errors".

A node is its path, not its name: names are free text (any character, the same name at many
places, a child named like its parent), and a path names the nodes from a domain down; "" is
the root, whose children are the domains. In a path string, a '/' inside a name is written
'\\/' and a backslash '\\\\' ("UI\\/UX Design"), so no name can break a path: the one spelling
used wherever a path is a string (tags, JSON, the report, navigation). A backslash before any
other character stands for itself. Whitespace around each name is not part of it.
"""

from __future__ import annotations

from collections.abc import Iterable

SEP = "/"
ESCAPE = "\\"
LABEL_SEP = " › "
"""Between the names of a path shown to people ("coding › UI/UX Design"): never parsed."""


class TaxonomyError(ValueError):
    """An invalid tree, path or edit; `loc` is the JSON location of the offending node when
    known."""

    def __init__(self, message: str, loc: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc


def escape_name(name: str) -> str:
    """A name as a path segment: "UI/UX Design" -> "UI\\/UX Design"."""
    return name.replace(ESCAPE, ESCAPE * 2).replace(SEP, ESCAPE + SEP)


def _segments(path: str) -> list[str]:
    """The raw names of a path, escapes resolved, before stripping."""
    if ESCAPE not in path:
        return path.split(SEP)
    names, current, index = [], [], 0
    while index < len(path):
        char = path[index]
        following = path[index + 1 : index + 2]
        if char == ESCAPE and following in (SEP, ESCAPE):
            current.append(following)
            index += 2
            continue
        if char == SEP:
            names.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    names.append("".join(current))
    return names


def split_path(path: str) -> list[str]:
    """The names along a path, escapes resolved and whitespace around each stripped; ""
    (the root) has none."""
    if not path.strip():
        return []
    names = [part.strip() for part in _segments(path)]
    if not all(names):
        raise TaxonomyError(f"path '{path}' has an empty segment")
    return names


def join_names(names: Iterable[str]) -> str:
    """The path of the names from a domain down: ["Design", "UI/UX"] -> "Design/UI\\/UX"."""
    return SEP.join(escape_name(name) for name in names)


def normalize_path(path: str) -> str:
    """The canonical spelling of a path: "coding / debugging" -> "coding/debugging"."""
    return join_names(split_path(path))


def lineage(path: str) -> list[str]:
    """The path and all its ancestors, shallowest first: "a/b/c" -> ["a", "a/b", "a/b/c"]."""
    names = split_path(path)
    return [join_names(names[: i + 1]) for i in range(len(names))]


def parent_of(path: str) -> str:
    """The parent's path; a domain's parent is the root ""."""
    return join_names(split_path(path)[:-1])


def last_name(path: str) -> str:
    """The name of the node at path ("" for the root)."""
    names = split_path(path)
    return names[-1] if names else ""


def depth_of(path: str) -> int:
    """Levels from the root to the node at path: a domain is 1, the root 0."""
    return len(split_path(path))


def join_path(parent: str, name: str) -> str:
    """The path of the child `name` of `parent` ("" for the root)."""
    return f"{parent}{SEP}{escape_name(name)}" if parent else escape_name(name)


def is_within(path: str, ancestor: str) -> bool:
    """Whether path is ancestor itself or lies below it."""
    outer = split_path(ancestor)
    return split_path(path)[: len(outer)] == outer


def label(path: str) -> str:
    """A path as people read it, its names joined by " › " ("coding/UI\\/UX Design" ->
    "coding › UI/UX Design"); "overall" for the root. For display only: a name may hold
    the separator, so a label is never parsed back."""
    names = split_path(path)
    return LABEL_SEP.join(names) if names else "overall"
