"""Slices of a benchmark or of a run: the first N items, a seeded sample stratified as the
protocol scores, the ids of a file, the items with some tag values, some models.

A slice selects items (`Slice.select`) from (id, tags) pairs in their order, the selection kept
in that order. What a slice did is recorded in the run store as a `Scope` (see
`store.scope`): the run's items (`run_scope`) or a judge's part of the run (`claim_judge`). A
rerun of the same slice resumes; a wider one adds to it; one that would leave out something
the run (or the judge) already covers is refused in one line, so that a run is never a silent
mix of two slices.
"""

from __future__ import annotations

import json
import shlex
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checkbench import registry
from checkbench.errors import InputError
from checkbench.inputs import read_input_text
from checkbench.store.scope import RUN_SCOPE, SCOPES, WHOLE, Scope, judge_scope_key

if TYPE_CHECKING:
    from checkbench.store import RunStore

Tags = Mapping[str, Sequence[str]]
SHOWN = 3
"""How many left-out ids a refusal names."""


@dataclass(frozen=True)
class Slice:
    """Which items (and, for the commands that read a run, which models) a command works on;
    the default is everything. `tags` are "FACET=VALUE" strings: an item has one of the
    values given for each facet named."""

    limit: int | None = None
    sample: int | None = None
    sample_seed: int = 0
    items_file: Path | None = None
    tags: tuple[str, ...] = ()
    models: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for flag, value in (("--limit", self.limit), ("--sample", self.sample)):
            if value is not None and value < 0:
                raise InputError(f"must be 0 or more, got {value}", field=flag)
        if self.limit is not None and self.sample is not None:
            raise InputError("give --limit or --sample, not both", field="--sample")
        self.tag_values()  # a malformed --tag fails here, before anything is read

    @property
    def whole(self) -> bool:
        """Whether the slice is everything (no flag given)."""
        return self == Slice(sample_seed=self.sample_seed)

    @property
    def items_only(self) -> bool:
        """Whether the slice selects every item (it may still select models)."""
        return Slice(models=self.models, sample_seed=self.sample_seed) == self

    def spec(self) -> str:
        """The slice as its flags, e.g. "--sample 60 --sample-seed 1 --tag task=Coding"."""
        words: list[str] = []
        if self.limit is not None:
            words += ["--limit", str(self.limit)]
        if self.sample is not None:
            words += ["--sample", str(self.sample), "--sample-seed", str(self.sample_seed)]
        if self.items_file is not None:
            words += ["--items", str(self.items_file)]
        for tag in self.tags:
            words += ["--tag", tag]
        for model in self.models:
            words += ["--model", model]
        return shlex.join(words)

    def tag_values(self) -> dict[str, set[str]]:
        """facet -> the values asked for it."""
        wanted: dict[str, set[str]] = defaultdict(set)
        for tag in self.tags:
            facet, sep, value = tag.partition("=")
            if not sep or not facet.strip() or not value.strip():
                raise InputError(
                    f"expected FACET=VALUE (e.g. task=Coding), got {tag!r}", field="--tag"
                )
            wanted[facet.strip()].add(value.strip())
        return dict(wanted)

    def select(self, items: Iterable[tuple[str, Tags]]) -> list[str]:
        """The ids of the items the slice selects, in their order; an unknown tag facet or an
        id of `--items` that no item has is an InputError."""
        pairs = list(items)
        chosen = _by_tags(_by_file(pairs, self.items_file), self.tag_values(), pairs)
        if self.limit is not None:
            chosen = chosen[: self.limit]
        if self.sample is not None:
            chosen = stratified_sample(chosen, self.sample, self.sample_seed)
        return [item_id for item_id, _ in chosen]


def _by_file(pairs: list[tuple[str, Tags]], path: Path | None) -> list[tuple[str, Tags]]:
    if path is None:
        return pairs
    wanted = read_ids(path)
    known = {item_id for item_id, _ in pairs}
    for item_id, line in wanted.items():
        if item_id not in known:
            raise InputError(f"no item '{item_id}' to select", path=path, line=line)
    return [pair for pair in pairs if pair[0] in wanted]


def read_ids(path: Path) -> dict[str, int]:
    """The item ids a file lists -> their line: one id a line, or JSONL of ids or of objects
    with an `id` (or `item_id`); blank lines are skipped."""
    ids: dict[str, int] = {}
    for number, raw in enumerate(read_input_text(path).splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        found: object = line
        if line[0] in '{"':
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON ({exc.msg})", path=path, line=number) from None
            found = value.get("id", value.get("item_id")) if isinstance(value, dict) else value
        if not isinstance(found, str) or not found:
            raise InputError("expected an item id (a string)", path=path, line=number, field="id")
        ids.setdefault(found, number)
    return ids


def _by_tags(
    pairs: list[tuple[str, Tags]], wanted: dict[str, set[str]], every: list[tuple[str, Tags]]
) -> list[tuple[str, Tags]]:
    if not wanted:
        return pairs
    facets = {facet for _, tags in every for facet in tags}
    for facet in wanted:
        if facet not in facets:
            known = ", ".join(sorted(facets)) or "none"
            raise InputError(
                f"no item has the tag facet '{facet}' (facets: {known})", field="--tag"
            )
    return [
        (item_id, tags)
        for item_id, tags in pairs
        if all(values & set(tags.get(facet, ())) for facet, values in wanted.items())
    ]


def stratified_sample(
    pairs: Sequence[tuple[str, Tags]], n: int, seed: int
) -> list[tuple[str, Tags]]:
    """`n` of the items drawn without replacement with `seed`, stratified by the protocol's
    strata (`registry.stratum`, e.g. FB-Bench's "EC/Coding") level by level: each scenario
    its proportional share, then each task its share of its scenario's (see `_allocate`);
    kept in their order. The draw depends on the items' ids and strata, not on the order they
    come in."""
    import numpy as np  # the CLI's start does not pay for it

    if n >= len(pairs):
        return list(pairs)
    strata: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for position, (_, tags) in sorted(enumerate(pairs), key=lambda pair: pair[1][0]):
        strata[tuple(registry.stratum(tags).split("/"))].append(position)
    kept = _allocate(strata, n, np.random.default_rng(seed), 0)
    return [pairs[position] for position in sorted(kept)]


def _allocate(strata: dict[tuple[str, ...], list[int]], n: int, rng: Any, depth: int) -> list[int]:
    """`n` positions drawn from the strata (path -> positions) that share their first `depth`
    levels: each value of the next level its proportional share, the largest remainders one
    more (ties in an order drawn with `rng`), and so on down to the positions."""
    groups: dict[str, dict[tuple[str, ...], list[int]]] = defaultdict(dict)
    for path, positions in strata.items():
        groups[path[depth] if len(path) > depth else ""][path] = positions
    names = sorted(groups)
    sizes = [sum(len(positions) for positions in groups[name].values()) for name in names]
    exact = [n * size / sum(sizes) for size in sizes]
    shares = [int(share) for share in exact]
    ties = rng.permutation(len(names)).tolist()
    order = sorted(range(len(names)), key=lambda k: (-(exact[k] - shares[k]), ties[k]))
    for k in order[: n - sum(shares)]:
        shares[k] += 1
    kept: list[int] = []
    for name, share in zip(names, shares, strict=True):
        group = groups[name]
        if all(len(path) <= depth + 1 for path in group):  # one stratum: draw from it
            positions = [p for positions in group.values() for p in positions]
            kept += rng.choice(positions, size=share, replace=False).tolist()
        else:
            kept += _allocate(group, share, rng, depth + 1)
    return kept


WHOLE_SLICE = Slice()
"""Every item and model."""


def run_scope(store: RunStore, selected: Sequence[str], slice_: Slice) -> Scope:
    """The run's scope once it holds the items `selected` by the slice, to record after they
    are stored: every item the run holds must be selected (the same slice, or a wider one);
    one that would leave some out is refused (an InputError)."""
    prior = store.scope(RUN_SCOPE)
    chosen = set(selected)
    outside = [item_id for item_id, *_ in store.item_columns() if item_id not in chosen]
    if outside:
        raise InputError(_refusal(f"this run holds {len(outside)} item(s)", outside, prior))
    spec = "" if slice_.items_only else slice_.spec()
    return Scope(spec=spec, item_ids=list(selected))


def slice_scope(store: RunStore, slice_: Slice) -> Scope:
    """The part of the run the slice selects: its items among the run's and its models among
    the run's (None where it is every one); an unknown model or tag facet is an InputError."""
    if slice_.whole:
        return WHOLE
    heads = [(head.id, head.tags) for head in store.item_heads()]
    ids = None if slice_.items_only else slice_.select(heads)
    if ids is not None and len(ids) == len(heads):
        ids = None  # every item: the same as no slice
    models = None
    if slice_.models:
        known = store.models()
        unknown = [model for model in slice_.models if model not in known]
        if unknown:
            raise InputError(
                f"no model '{unknown[0]}' in this run (models: {', '.join(known) or 'none'})",
                field="--model",
            )
        models = None if set(known) <= set(slice_.models) else list(slice_.models)
    return Scope(spec=slice_.spec(), item_ids=ids, models=models)


def judged_scope(store: RunStore, judge: str) -> Scope | None:
    """The part of the run `judge` covered so far: its recorded scope, the whole run when it
    has verdicts and none, None when it has not judged."""
    prior = store.scope(judge_scope_key(judge))
    if prior is None and judge in store.judges():
        prior = WHOLE
    return prior


def claim_judge(store: RunStore, judge: str, slice_: Slice, *, write: bool = True) -> Scope:
    """Record the part of the run `judge` judges: the slice's items among the run's (and its
    models among the run's), which must cover what the judge covered already (its recorded
    scope, or the whole run when it has verdicts and none); returns it. With `write=False`,
    only checked (a refusal is the same InputError), nothing recorded."""
    key = judge_scope_key(judge)
    prior = judged_scope(store, judge)
    if slice_.whole:
        if write and prior is not None and not prior.whole:
            store.put_record(SCOPES, key, WHOLE)
        return WHOLE
    scope = slice_scope(store, slice_)
    if prior is not None and not scope.covers(prior):
        ids, models = scope.item_ids, scope.models
        had_items = prior.item_ids or [item_id for item_id, *_ in store.item_columns()]
        had_models = prior.models or store.models()
        kept = set(had_items if ids is None else ids)
        left = [item_id for item_id in had_items if item_id not in kept]
        left += [f"model {m}" for m in had_models if models is not None and m not in models]
        raise InputError(
            _refusal(f"judge {judge} covers {len(left)} item(s) or model(s)", left, prior)
        )
    if write:
        store.put_record(SCOPES, key, scope)
    return scope


def _refusal(what: str, outside: Sequence[str], prior: Scope | None) -> str:
    """One line: what the run covers that the slice leaves out, and what to do."""
    named = ", ".join(f"'{item_id}'" for item_id in outside[:SHOWN])
    more = f" and {len(outside) - SHOWN} more" if len(outside) > SHOWN else ""
    earlier = f" (its slice: {prior.spec})" if prior is not None and prior.spec else ""
    return (
        f"{what} outside this slice ({named}{more}){earlier}: a narrower or different slice "
        "on an existing run is refused; give the same slice or a wider one, or a new run "
        "directory"
    )
