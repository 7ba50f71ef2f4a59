"""Paired comparison of two models, or of two runs, by a benchmark's own protocol: the delta
of the headline score with a paired bootstrap interval and a sign-flip test, per-tag deltas,
the checks that flipped (McNemar) and the items that moved most (see docs/compare.md)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from checkbench.compare.paired import compare_sides
from checkbench.compare.result import Comparison, Delta, FlippedCheck, Flips, MovedItem, TagDelta
from checkbench.compare.runs import CompareSettings
from checkbench.compare.sides import each, open_runs, pair
from checkbench.errors import InputError
from checkbench.store import RunStore

__all__ = [
    "CompareSettings",
    "Comparison",
    "Delta",
    "FlippedCheck",
    "Flips",
    "MovedItem",
    "TagDelta",
    "compare",
    "compare_each",
    "compare_pairs",
]


def compare(
    runs: Sequence[str | Path],
    baseline: str | None = None,
    candidate: str | None = None,
    settings: CompareSettings | None = None,
) -> Comparison:
    """The candidate against the baseline: two models of one run (`runs` is one run
    directory) or one model of each of two runs (the baseline's first); a model may be left
    unnamed in a run that holds only it."""
    if len(runs) not in (1, 2):
        raise InputError(f"compare takes one run or two, not {len(runs)}")
    settings = settings or CompareSettings()
    with ExitStack() as stack:
        stores = [stack.enter_context(RunStore.existing(run)) for run in runs]
        views = open_runs(runs, settings, stores)
        base, cand = pair(views, baseline, candidate)
        found = compare_sides(base, cand, settings)
    if found.n == 0 and found.unscored == 0:
        raise InputError(
            f"no shared items: {base.label} and {cand.label} answered no item in common"
        )
    return found


def compare_each(
    run: str | Path, baseline: str, settings: CompareSettings | None = None
) -> list[Comparison]:
    """Every other model of the run against the baseline, one comparison each, by name."""
    settings = settings or CompareSettings()
    with RunStore.existing(run) as store:
        (view,) = open_runs([run], settings, [store])
        return [compare_sides(base, cand, settings) for base, cand in each(view, baseline)]


def compare_pairs(
    store: RunStore, pairs: Sequence[tuple[str, str]], settings: CompareSettings
) -> list[Comparison]:
    """Each (baseline, candidate) pair of models of an open run, models as stored."""
    (view,) = open_runs([store.run_dir], settings, [store])
    return [compare_sides(*pair([view], base, cand), settings) for base, cand in pairs]
