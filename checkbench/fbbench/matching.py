"""Which entry of a published judgment answers which check.

The judge answers with a map from check text to verdict, and its keys do not always repeat the
checklist: some differ in whitespace, some carry typos or rewording, some come in another
order, and a few checklists got fewer entries than checks. Entries are matched to checks in
four passes, each over what the previous ones left: the exact text, the text without
whitespace, the closest text (a similarity of at least MIN_SIMILARITY), and finally, when as
many entries as checks are left, the order of both. What stays unmatched is reported, never
guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from checkbench.fbbench.dataset import squeeze

How = Literal["exact", "whitespace", "closest", "position"]
"""The pass that matched an entry to its check."""
Pairs = list[tuple[int, int]]
"""(check position, entry position) pairs."""

MIN_SIMILARITY = 0.6
"""The least similarity (difflib ratio of the texts without whitespace) for a closest match."""


@dataclass
class Matching:
    """Check index -> (entry key, how it matched); the entry keys matching no check; the
    indexes of checks no entry matched."""

    matched: dict[int, tuple[str, How]] = field(default_factory=dict)
    unmatched_keys: list[str] = field(default_factory=list)
    unjudged: list[int] = field(default_factory=list)


Indexed = list[tuple[int, str]]
"""(position in the full list, text) of what a pass may still match."""


def _equal_pass(checks: Indexed, keys: Indexed, normalise: Callable[[str], str]) -> Pairs:
    """Checks and keys whose normalised texts are equal, first come first served."""
    by_text: dict[str, list[int]] = {}
    for j, key in keys:
        by_text.setdefault(normalise(key), []).append(j)
    pairs = []
    for i, text in checks:
        candidates = by_text.get(normalise(text))
        if candidates:
            pairs.append((i, candidates.pop(0)))
    return pairs


def _closest_pass(checks: Indexed, keys: Indexed) -> Pairs:
    """The most similar pairs first, each check and entry used once, down to MIN_SIMILARITY."""
    scored = sorted(
        (
            (-SequenceMatcher(None, squeeze(text), squeeze(key)).ratio(), i, j)
            for i, text in checks
            for j, key in keys
        )
    )
    pairs: Pairs = []
    used_checks: set[int] = set()
    used_keys: set[int] = set()
    for negative, i, j in scored:
        if -negative < MIN_SIMILARITY:
            break
        if i not in used_checks and j not in used_keys:
            pairs.append((i, j))
            used_checks.add(i)
            used_keys.add(j)
    return pairs


def _position_pass(checks: Indexed, keys: Indexed) -> Pairs:
    """When as many entries as checks are left, the n-th left entry answers the n-th check."""
    if len(checks) != len(keys):
        return []
    return [(i, j) for (i, _), (j, _) in zip(checks, keys, strict=True)]


def match_entries(checks: Sequence[str], keys: Sequence[str]) -> Matching:
    """Match judgment entry keys to check texts (see the module docstring)."""
    left_checks: Indexed = list(enumerate(checks))
    left_keys: Indexed = list(enumerate(keys))
    result = Matching()
    passes: list[tuple[How, Callable[[Indexed, Indexed], Pairs]]] = [
        ("exact", lambda c, k: _equal_pass(c, k, str)),
        ("whitespace", lambda c, k: _equal_pass(c, k, squeeze)),
        ("closest", _closest_pass),
        ("position", _position_pass),
    ]
    for how, find in passes:
        pairs = find(left_checks, left_keys)
        for i, j in pairs:
            result.matched[i] = (keys[j], how)
        taken_keys = {j for _, j in pairs}
        left_checks = [(i, text) for i, text in left_checks if i not in result.matched]
        left_keys = [(j, key) for j, key in left_keys if j not in taken_keys]
    result.unmatched_keys = [key for _, key in left_keys]
    result.unjudged = [i for i, _ in left_checks]
    return result
