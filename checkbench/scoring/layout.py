"""How a protocol's headline score weighs a run's items: the layout a paired comparison of two
models needs so that its delta is the difference of the two leaderboard scores."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from checkbench.choices import UnscoredPolicy
from checkbench.store import RunStore

MAX_FACET_VALUES = 40
"""A facet with more values than this (ids, free text) is not a useful breakdown."""
SKIPPED_FACETS = {"taxonomy"}
"""Facets with their own report section, not broken down by."""


def breaks_down(facet: str, values: int) -> bool:
    """Whether a mean leaderboard breaks down by a facet of this many distinct values."""
    return facet not in SKIPPED_FACETS and 1 < values <= MAX_FACET_VALUES


@dataclass(frozen=True)
class ScoreLayout:
    """A run's items by position: each item's stratum (the score is the mean of the strata's
    mean item scores, and a bootstrap resamples within strata), the named parts of the headline
    (e.g. FB-Bench's error_correction: a mask over positions), the positions of each value of
    each facet the leaderboard breaks down by, and the unscored policy the score uses."""

    group: np.ndarray
    policy: UnscoredPolicy
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    facets: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    @classmethod
    def item_means(cls, store: RunStore, policy: UnscoredPolicy) -> ScoreLayout:
        """The layout of a score that is the mean of item scores: one stratum, every facet of
        the items' tags a leaderboard breaks down by (`breaks_down`), values sorted."""
        members: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for stored, listed in store.tag_sets():
            positions = [int(p) for p in listed.split(",")]
            for facet, values in json.loads(stored).items():
                for value in values:
                    members[facet][value].extend(positions)
        facets = {
            facet: {v: np.unique(np.array(p, dtype=np.int64)) for v, p in sorted(by.items())}
            for facet, by in sorted(members.items())
            if breaks_down(facet, len(by))
        }
        return cls(np.zeros(store.count_items(), dtype=np.int64), policy, facets=facets)
