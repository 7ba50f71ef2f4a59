"""The FB-Bench means in columns: where a run's items sit (their (scenario, task) groups, slices
and facet values, by position) and one model's headline and breakdown cells over them, each a
macro mean over (scenario, task) groups, values taken in item order (see `scoring`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from itertools import islice

import numpy as np

from checkbench.errors import InputError
from checkbench.fbbench.dataset import SCENARIOS
from checkbench.scoring import GroupScore, ItemScores, UnscoredPolicy, macro_summarize
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.store import RunStore

EC, RM = SCENARIOS["Error Correction"], SCENARIOS["Response Maintenance"]

BREAKDOWN_FACETS = ("task", "subtask", "feedback_type", "deficiency")
_KEYS = ("scenario", "task")
"""The facets of an item's (scenario, task) group: one value each (`_only`)."""
SLICES = (EC, RM, "all")
"""Breakdown slices: EC samples, RM samples, and all samples."""

Breakdowns = dict[str, dict[str, dict[str, GroupScore]]]
"""facet -> slice -> facet value -> score; empty slices and facets are left out."""


def _only(item_id: str, tags: Mapping[str, list[str]], facet: str) -> str:
    """The item's single value of an FB-Bench facet; other benchmarks are told where to go."""
    values = tags.get(facet, [])
    if len(values) != 1:
        raise InputError(
            f"item {item_id} has {values or 'no'} '{facet}' tag(s); the FB-Bench leaderboard "
            "needs one scenario (EC or RM) and one task per item: for other benchmarks use "
            "`checkbench convbench score RUN`",
            field=f"tags.{facet}",
        )
    return values[0]


@dataclass(frozen=True)
class Layout:
    """Where the run's items sit, by position: each item's (scenario, task) group (coded in
    order of first appearance), the items of each slice (EC, RM), and the items of each value
    of each breakdown facet (values sorted; an item with a value twice is listed twice)."""

    group: np.ndarray
    scenarios: list[str]
    slices: dict[str, np.ndarray]
    facets: dict[str, dict[str, np.ndarray]]

    @classmethod
    def of(cls, tags: Iterable[tuple[str, Mapping[str, list[str]]]]) -> Layout:
        """The layout of items given as (id, tags) in order."""
        keys: list[tuple[str, str]] = []
        members: dict[str, dict[str, list[int]]] = {f: defaultdict(list) for f in BREAKDOWN_FACETS}
        for position, (item_id, item_tags) in enumerate(tags):
            keys.append((_only(item_id, item_tags, "scenario"), _only(item_id, item_tags, "task")))
            for facet, by_value in members.items():
                for value in item_tags.get(facet, []):
                    by_value[value].append(position)
        return cls._of(
            keys,
            {
                facet: {v: np.array(p, dtype=np.int64) for v, p in by_value.items()}
                for facet, by_value in members.items()
            },
        )

    @classmethod
    def of_store(cls, store: RunStore) -> Layout:
        """The layout of a run store's items, each distinct tags parsed once."""
        n = store.count_items()
        seen: dict[tuple[str, str], int] = {}
        key_of = np.zeros(n, dtype=np.int64)
        members: dict[str, dict[str, list[np.ndarray]]] = {
            f: defaultdict(list) for f in BREAKDOWN_FACETS
        }
        first_bad = n
        for stored, listed in store.tag_sets():
            tags, positions = json.loads(stored), np.array(listed.split(","), dtype=np.int64)
            if any(len(tags.get(key, [])) != 1 for key in _KEYS):
                first_bad = min(first_bad, int(positions.min()))
                continue
            key_of[positions] = seen.setdefault((tags["scenario"][0], tags["task"][0]), len(seen))
            for facet, by_value in members.items():
                for value in tags.get(facet, []):
                    by_value[value].append(positions)
        if first_bad < n:
            item_id, _, _, stored = next(islice(store.item_columns(), first_bad, None))
            for key in _KEYS:
                _only(item_id, json.loads(stored), key)
        keys = list(seen)
        return cls._of(
            [keys[code] for code in key_of.tolist()],
            {
                facet: {v: np.sort(np.concatenate(p)) for v, p in by_value.items()}
                for facet, by_value in members.items()
            },
        )

    @classmethod
    def _of(
        cls, keys: Iterable[tuple[str, str]], members: Mapping[str, Mapping[str, np.ndarray]]
    ) -> Layout:
        """The layout from each item's (scenario, task) in order and the positions of each
        value of each breakdown facet."""
        codes: dict[tuple[str, str], int] = {}
        group = np.array([codes.setdefault(key, len(codes)) for key in keys], dtype=np.int64)
        scenarios = [scenario for scenario, _ in codes]
        scenario_of = np.array(scenarios + [""], dtype=object)[group]
        return cls(
            group,
            scenarios,
            {EC: scenario_of == EC, RM: scenario_of == RM},
            {facet: dict(sorted(by_value.items())) for facet, by_value in members.items()},
        )


def _strata(codes: np.ndarray, values: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The values of each group, groups in order of first appearance, values in order."""
    found, first = np.unique(codes, return_index=True)
    return [(int(code), values[codes == code]) for code in found[np.argsort(first)]]


def headline(
    layout: Layout, scores: ItemScores, policy: UnscoredPolicy, b: int, seed: int
) -> tuple[GroupScore, GroupScore, GroupScore]:
    """EC, RM and Overall: means of (scenario, task) group means, as the authors compute."""
    strata = _strata(layout.group[scores.positions], scores.values)
    summary = partial(macro_summarize, policy=policy, b=b, seed=seed)
    ec = [values for code, values in strata if layout.scenarios[code] == EC]
    rm = [values for code, values in strata if layout.scenarios[code] == RM]
    return summary(ec), summary(rm), summary([values for _, values in strata])


def fbbench_breakdowns(
    layout: Layout,
    scores: ItemScores,
    policy: UnscoredPolicy,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> Breakdowns:
    """One model's breakdown cells, each a macro mean over (scenario, task) groups."""
    answered = np.zeros(len(layout.group), dtype=bool)
    answered[scores.positions] = True
    value = np.full(len(layout.group), np.nan)
    value[scores.positions] = scores.values
    result: Breakdowns = {}
    for facet, by_value in layout.facets.items():
        slices = {}
        for name in SLICES:
            inside = answered if name == "all" else answered & layout.slices[name]
            table = {}
            for tag, members in by_value.items():
                chosen = members[inside[members]]
                if chosen.size:
                    strata = _strata(layout.group[chosen], value[chosen])
                    groups = [values for _, values in strata]
                    table[tag] = macro_summarize(groups, policy, b=b, seed=seed)
            if table:
                slices[name] = table
        if slices:
            result[facet] = slices
    return result
