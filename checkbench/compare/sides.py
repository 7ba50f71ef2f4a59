"""The two sides of a comparison: a model's verdicts by a judge in a run, either two models of
one run or one model of each of two runs, checked to be comparable (the same benchmark's items,
shared items, the same judge unless different judges are allowed)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from checkbench import registry
from checkbench.compare.runs import CompareSettings
from checkbench.errors import InputError
from checkbench.schema import Item, Response
from checkbench.scoring import ItemScores, ScoreLayout, store_scores
from checkbench.store import RunStore

Checks = dict[str, bool | None]
"""check id -> met (None: unscored) in one sample's verdicts."""


@dataclass
class RunView:
    """What a comparison reads from one run by one judge, each part read once when needed."""

    run_dir: Path
    store: RunStore
    judge: str
    """Set once the runs are known to be comparable (`open_runs`)."""
    _answers: dict[str, dict[str, Response]] = field(default_factory=dict)

    @cached_property
    def scorer(self) -> registry.RunScorer:
        """The protocol that scores the run, as `run --protocol auto` picks it."""
        return registry.run_scorer(self.store)

    @cached_property
    def columns(self) -> list[tuple[str, str, str, str]]:
        """(id, rule, checks, tags) of the items by position."""
        return list(self.store.item_columns())

    @cached_property
    def ids(self) -> list[str]:
        return [item_id for item_id, *_ in self.columns]

    @cached_property
    def layout(self) -> ScoreLayout:
        """How the protocol's score weighs the items (item means when it does not say)."""
        if self.scorer.paired is None:
            return ScoreLayout.item_means(self.store, "zero")
        return self.scorer.paired(self.store)

    @cached_property
    def scores(self) -> dict[str, ItemScores]:
        return store_scores(self.store, self.judge)

    @cached_property
    def verdicts(self) -> dict[str, dict[tuple[int, int], Checks]]:
        """model -> (item position, sample) -> the judge's verdicts on that answer."""
        found: dict[str, dict[tuple[int, int], Checks]] = defaultdict(dict)
        for position, model, _, _, passed in self.store.sample_verdicts(self.judge):
            by_unit = found[model]
            sample = 0
            while (position, sample) in by_unit:
                sample += 1
            by_unit[position, sample] = {
                check: None if met is None else bool(met)
                for check, met in json.loads(passed).items()
            }
        return found

    @cached_property
    def items(self) -> dict[str, Item]:
        return {item.id: item for item in self.store.items()}

    def answers(self, model: str) -> dict[str, Response]:
        """item id -> the model's first answer."""
        if model not in self._answers:
            first: dict[str, Response] = {}
            for response in self.store.responses(model):
                first.setdefault(response.item_id, response)
            self._answers[model] = first
        return self._answers[model]


@dataclass(frozen=True)
class Side:
    """One model of one run, by the label the output shows."""

    run: RunView
    model: str
    label: str


def _one_judge(store: RunStore, run_dir: Path, judge_id: str | None) -> str:
    judges = store.judges()
    if judge_id is not None:
        if judge_id not in judges:
            found = ", ".join(judges) or "none"
            raise InputError(f"{run_dir}: no verdicts by judge '{judge_id}' (judges: {found})")
        return judge_id
    if len(judges) != 1:
        found = ", ".join(judges) if judges else "none yet: run `checkbench judge` first"
        raise InputError(f"{run_dir}: choose a judge with --judge-id (judges: {found})")
    return judges[0]


def _judges(
    stores: Sequence[RunStore], dirs: Sequence[Path], settings: CompareSettings
) -> list[str]:
    """The judge of each run: the one named, else the one judge the runs share; with
    `allow_different_judges`, each run's only judge when they share none."""
    if len(stores) == 1 or settings.judge_id is not None:
        return [_one_judge(s, d, settings.judge_id) for s, d in zip(stores, dirs, strict=True)]
    (a, b), (dir_a, dir_b) = stores, dirs
    judges_a, judges_b = a.judges(), b.judges()
    shared = [judge for judge in judges_a if judge in judges_b]
    if len(shared) == 1:
        return [shared[0], shared[0]]
    if len(shared) > 1:
        raise InputError(
            f"choose a judge with --judge-id (judges of both runs: {', '.join(shared)})"
        )
    if settings.allow_different_judges:
        return [_one_judge(a, dir_a, None), _one_judge(b, dir_b, None)]
    raise InputError(
        f"different judges: {dir_a} by {', '.join(judges_a) or 'none'}, {dir_b} by "
        f"{', '.join(judges_b) or 'none'}; compare by one judge, or pass --allow-different-judges"
    )


def open_runs(
    dirs: Sequence[str | Path], settings: CompareSettings, stores: Sequence[RunStore]
) -> list[RunView]:
    """The runs as views by their judges, two runs checked to hold the same benchmark's items
    first."""
    paths = [Path(d) for d in dirs]
    views = [RunView(p, s, "") for p, s in zip(paths, stores, strict=True)]
    if len(views) == 2:
        _same_benchmark(*views)
    for view, judge in zip(views, _judges(stores, paths, settings), strict=True):
        view.judge = judge
    return views


def _same_benchmark(a: RunView, b: RunView) -> None:
    if a.scorer.name != b.scorer.name:
        raise InputError(
            f"runs over different benchmarks: {a.run_dir} is scored as {a.scorer.name}, "
            f"{b.run_dir} as {b.scorer.name}"
        )
    checks = {item_id: stored for item_id, _, stored, _ in b.columns}
    shared = 0
    for item_id, _, stored, _ in a.columns:
        if item_id in checks:
            shared += 1
            if checks[item_id] != stored:
                raise InputError(
                    f"runs over different benchmarks: item {item_id} has other checks in "
                    f"{b.run_dir} than in {a.run_dir}"
                )
    if not shared:
        raise InputError(f"no shared items: {a.run_dir} and {b.run_dir} have no item id in common")


def _model(run: RunView, named: str | None, role: str) -> str:
    models = run.store.models()
    if named is not None:
        if named not in models:
            raise InputError(
                f"{run.run_dir}: no model '{named}' (models: {', '.join(models) or 'none'})"
            )
        return named
    if len(models) != 1:
        raise InputError(
            f"{run.run_dir} holds {len(models)} models ({', '.join(models) or 'none'}): "
            f"name the {role} with --{role}"
        )
    return models[0]


def pair(runs: Sequence[RunView], baseline: str | None, candidate: str | None) -> tuple[Side, Side]:
    """The baseline and the candidate: two models of one run, or one model of each run."""
    if len(runs) == 1:
        if baseline is None or candidate is None:
            raise InputError("name both models of the run: --baseline A --candidate B")
        if baseline == candidate:
            raise InputError(f"the baseline and the candidate are the same model '{baseline}'")
        base, cand = _model(runs[0], baseline, "baseline"), _model(runs[0], candidate, "candidate")
        return Side(runs[0], base, base), Side(runs[0], cand, cand)
    base, cand = _model(runs[0], baseline, "baseline"), _model(runs[1], candidate, "candidate")
    same = base == cand
    return (
        Side(runs[0], base, f"{base} ({runs[0].run_dir})" if same else base),
        Side(runs[1], cand, f"{cand} ({runs[1].run_dir})" if same else cand),
    )


def each(run: RunView, baseline: str) -> list[tuple[Side, Side]]:
    """The baseline against every other model of the run, in name order."""
    base = _model(run, baseline, "baseline")
    others = [model for model in run.store.models() if model != base]
    if not others:
        raise InputError(f"{run.run_dir}: no model besides the baseline '{base}' to compare")
    return [(Side(run, base, base), Side(run, model, model)) for model in others]


def positions_in(base: RunView, other: RunView) -> np.ndarray:
    """For each of `other`'s item positions, the position of the same item in `base` (-1:
    not there)."""
    if other is base:
        return np.arange(len(base.ids), dtype=np.int64)
    index = {item_id: position for position, item_id in enumerate(base.ids)}
    return np.array([index.get(item_id, -1) for item_id in other.ids], dtype=np.int64)
