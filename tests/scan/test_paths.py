"""Paths with free-text names: a '/' or a backslash inside a name is escaped, so no name can
break a path, and every helper reads the escapes the same way."""

from __future__ import annotations

import pytest

from checkbench.scan.paths import (
    TaxonomyError,
    depth_of,
    escape_name,
    is_within,
    join_names,
    join_path,
    last_name,
    lineage,
    normalize_path,
    parent_of,
    split_path,
)

NAMES = ["Design", "UI/UX Design", "C:\\temp\\", "Design"]


def test_escaped_paths_round_trip_any_names() -> None:
    path = join_names(NAMES)
    assert path == "Design/UI\\/UX Design/C:\\\\temp\\\\/Design"
    assert split_path(path) == NAMES
    assert escape_name("a/b\\c") == "a\\/b\\\\c"
    assert depth_of(path) == 4 and last_name(path) == "Design"
    assert parent_of(path) == join_names(NAMES[:3])
    assert lineage(path) == [join_names(NAMES[: i + 1]) for i in range(4)]
    assert join_path(parent_of(path), "Design") == path


def test_spacing_is_normalized_and_a_lone_backslash_stands_for_itself() -> None:
    assert normalize_path(" a / b\\/c ") == "a/b\\/c"
    assert split_path("a/b\\c") == ["a", "b\\c"]
    assert normalize_path("a/b\\c") == "a/b\\\\c"
    assert split_path("") == [] and depth_of("") == 0 and last_name("") == ""


def test_an_escaped_slash_is_no_separator() -> None:
    assert is_within("UI\\/UX/Accessibility", "UI\\/UX")
    assert not is_within("UI\\/UX", "UI")
    with pytest.raises(TaxonomyError, match="empty segment"):
        split_path("a//b")
