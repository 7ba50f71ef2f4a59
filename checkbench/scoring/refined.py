"""Refined checklists: the checks an audit kept of each item (`checkbench audit RUN
--write-refined`), stored in the run so that its verdicts can be scored again without them,
with no model call."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.store import RecordKind, RunStore

Pairs = list[tuple[str, float | None]]
"""An item's (check id, weight) pairs in checklist order, as the store keeps a checklist."""


class RefinedChecklists(BaseModel):
    """The kept checks of every item whose checklist the audit changed (item id -> pairs, the
    weights rescaled as the item's rule scores them), with where they came from."""

    provenance: dict[str, Any]
    checklists: dict[str, Pairs]


REFINED_CHECKLISTS = RecordKind("refined_checklists", RefinedChecklists)
REFINED_KEY = "latest"
"""The key of the run's refined checklists: a later audit replaces them."""


def refined_checklists(store: RunStore) -> dict[int, str]:
    """item position -> the refined (check id, weight) pairs as stored JSON, for the items
    the refinement changed; an InputError when the run holds none."""
    found = store.records(REFINED_CHECKLISTS, only=REFINED_KEY).get(REFINED_KEY)
    if found is None:
        raise InputError(
            "no refined checklists in this run: write them with "
            "`checkbench audit RUN --write-refined OUT`",
            path=store.run_dir,
        )
    return by_position(store, found.checklists)


def by_position(store: RunStore, checklists: Mapping[str, Pairs]) -> dict[int, str]:
    """The pairs of item ids as stored JSON, by the items' positions in the store."""
    found: dict[int, str] = {}
    for position, (item_id, *_) in enumerate(store.item_columns()):
        if item_id in checklists:
            found[position] = json.dumps(checklists[item_id], separators=(",", ":"))
    return found


def refine_rows(
    rows: Sequence[tuple[Any, ...]], checklists: Mapping[int, str] | None
) -> Sequence[tuple[Any, ...]]:
    """`sample_verdicts` rows with the refined items' checks (those also in the row's checks)
    in place of theirs and the verdicts on the checks left out dropped; as they are without
    `checklists`."""
    if not checklists:
        return rows
    refined: list[tuple[Any, ...]] = []
    for row in rows:
        kept = checklists.get(row[0])
        if kept is None:
            refined.append(row)
            continue
        known = {check for check, _ in json.loads(row[3])}
        pairs = [pair for pair in json.loads(kept) if pair[0] in known]
        ids = {check for check, _ in pairs}
        verdicts = {k: v for k, v in json.loads(row[4]).items() if k in ids}
        refined.append((*row[:3], json.dumps(pairs), json.dumps(verdicts), *row[5:]))
    return refined


def chosen_checklists(store: RunStore, checklist: str) -> dict[int, str] | None:
    """The checklists `ScoringSettings.checklist` names: None for the items' own (full), the
    refined ones an audit stored otherwise."""
    return refined_checklists(store) if checklist == "refined" else None
