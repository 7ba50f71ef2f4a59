"""Slash paths that address taxonomy nodes: "coding/debugging/memory errors".

A path names the nodes from a domain down; "" is the root, whose children are the domains.
Whitespace around each name is not part of it.
"""

from __future__ import annotations

SEP = "/"


class TaxonomyError(ValueError):
    """An invalid tree, path or edit; `loc` is the JSON location of the offending node when
    known."""

    def __init__(self, message: str, loc: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc


def split_path(path: str) -> list[str]:
    """The names along a path, whitespace around each stripped; "" (the root) has none."""
    if not path.strip():
        return []
    names = [part.strip() for part in path.split(SEP)]
    if not all(names):
        raise TaxonomyError(f"path '{path}' has an empty segment")
    return names


def normalize_path(path: str) -> str:
    """The canonical spelling of a path: "coding / debugging" -> "coding/debugging"."""
    return SEP.join(split_path(path))


def lineage(path: str) -> list[str]:
    """The path and all its ancestors, shallowest first: "a/b/c" -> ["a", "a/b", "a/b/c"]."""
    names = split_path(path)
    return [SEP.join(names[: i + 1]) for i in range(len(names))]


def parent_of(path: str) -> str:
    """The parent's path; a domain's parent is the root ""."""
    return SEP.join(split_path(path)[:-1])


def join_path(parent: str, name: str) -> str:
    """The path of the child `name` of `parent` ("" for the root)."""
    return f"{parent}{SEP}{name}" if parent else name


def is_within(path: str, ancestor: str) -> bool:
    """Whether path is ancestor itself or lies below it."""
    outer = split_path(ancestor)
    return split_path(path)[: len(outer)] == outer
