"""The refined benchmark: each item without its flagged checks (of the kinds chosen), the kept
weights rescaled as the item's rule scores them; an item whose every check is flagged is kept
whole (with no check it would be unscored). Written as a benchmark file with its provenance,
and stored in the run as its refined checklists (`scoring.refined`), so that
`leaderboard RUN --checklist refined` scores the same verdicts without them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checkbench.audit.checks import Flag
from checkbench.audit.matrix import Checks
from checkbench.choices import FlagKind
from checkbench.jsonl import write_jsonl
from checkbench.schema import Item
from checkbench.scoring.refined import REFINED_CHECKLISTS, REFINED_KEY, Pairs, RefinedChecklists
from checkbench.store import RunStore


@dataclass(frozen=True)
class Refinement:
    """`dropped`: per check (run order) whether the refined benchmark leaves it out;
    `checklists`: item id -> kept (check id, weight) pairs of every item it changes;
    `whole`: the items kept whole because every check of theirs is flagged."""

    dropped: np.ndarray
    checklists: dict[str, Pairs]
    whole: list[str]


def rescaled(rule: str, weights: Sequence[float | None]) -> list[float | None]:
    """Kept weights as the rule scores them: a weighted item's scaled to sum to 1 (when they
    have a positive sum), others' as they are."""
    total = sum(w or 0.0 for w in weights)
    if rule != "weighted" or total <= 0:
        return list(weights)
    return [None if w is None else w / total for w in weights]


def refine(checks: Checks, flags: Sequence[Sequence[Flag]], drop: Sequence[FlagKind]) -> Refinement:
    """Which checks the refined benchmark leaves out, item by item."""
    chosen = set(drop)
    flagged = np.array([any(f.kind in chosen for f in mine) for mine in flags], dtype=bool)
    dropped = flagged.copy()
    checklists: dict[str, Pairs] = {}
    whole: list[str] = []
    starts = np.flatnonzero(np.r_[True, checks.position[1:] != checks.position[:-1]])
    ends = np.r_[starts[1:], len(checks)]
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        if not flagged[start:end].any():
            continue
        item_id = checks.item_ids[start]
        if flagged[start:end].all():
            dropped[start:end] = False
            whole.append(item_id)
            continue
        kept = [k for k in range(start, end) if not flagged[k]]
        weights = rescaled(checks.rules[start], [checks.weight[k] for k in kept])
        checklists[item_id] = [(checks.check_ids[k], w) for k, w in zip(kept, weights, strict=True)]
    return Refinement(dropped, checklists, whole)


def refined_item(
    item: Item, pairs: Pairs, reasons: dict[str, list[str]], provenance: dict[str, Any]
) -> Item:
    """The item with only the kept checks and their weights, and in its meta what was left
    out and why."""
    weight = dict(pairs)
    checklist = [
        check.model_copy(update={"weight": weight[check.id]})
        for check in item.checklist
        if check.id in weight
    ]
    left_out = [
        {"check_id": check.id, "text": check.text, "reasons": reasons.get(check.id, [])}
        for check in item.checklist
        if check.id not in weight
    ]
    meta = {**item.meta, "refined": {**provenance, "left_out": left_out}}
    return item.model_copy(update={"checklist": checklist, "meta": meta})


def write_refined(
    store: RunStore,
    out: Path,
    refinement: Refinement,
    reasons: dict[tuple[str, str], list[str]],
    provenance: dict[str, Any],
) -> int:
    """Write the refined benchmark to `out` (native JSONL) and store its checklists in the run
    (replacing earlier ones); the number of items written."""
    by_item: dict[str, dict[str, list[str]]] = {}
    for (item_id, check_id), why in reasons.items():
        by_item.setdefault(item_id, {})[check_id] = why
    items = (
        refined_item(item, refinement.checklists[item.id], by_item.get(item.id, {}), provenance)
        if item.id in refinement.checklists
        else item
        for item in store.items()
    )
    written = write_jsonl(out, items)
    store.put_record(
        REFINED_CHECKLISTS,
        REFINED_KEY,
        RefinedChecklists(provenance=provenance, checklists=refinement.checklists),
    )
    return written
