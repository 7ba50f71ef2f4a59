"""Scopes: the part of a run a slice selected, as the run store records it.

A run made from a slice of a benchmark records the slice under the key `RUN_SCOPE`; a judge
that judged a slice of a run records it under `judge_scope_key(judge)`. The store's readers of
a judge's verdicts (what is left to judge, what is scored) keep to that judge's scope, so a
judge that saw 60 items is never scored as if it had left the others unscored.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict

from checkbench.store.records import RecordKind

RUN_SCOPE = "run"
"""The key of the scope of the run's items (the union of the slices generated or imported)."""


class Scope(BaseModel):
    """What a slice selected: the slice as it was given (its flags, for people), the item ids
    it selected (None: every item) and the models (None: every model)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    """The slice's flags as given, e.g. "--sample 60 --sample-seed 1"; "" for the whole run."""
    item_ids: list[str] | None = None
    models: list[str] | None = None

    @property
    def whole(self) -> bool:
        """Whether the scope is everything (no item or model left out)."""
        return self.item_ids is None and self.models is None

    def holds(self, item_id: str, model: str) -> bool:
        """Whether a reply of `model` to item `item_id` is inside the scope (`SCOPED` in SQL)."""
        items, models = self._sets
        return (items is None or item_id in items) and (models is None or model in models)

    @cached_property
    def _sets(self) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        return (
            None if self.item_ids is None else frozenset(self.item_ids),
            None if self.models is None else frozenset(self.models),
        )

    def covers(self, other: Scope) -> bool:
        """Whether every item and model of `other` is in this scope too."""
        return _covers(self.item_ids, other.item_ids) and _covers(self.models, other.models)

    def params(self) -> dict[str, Any]:
        """The SQL parameters of `SCOPED` for this scope."""
        return {
            "scope_items": None if self.item_ids is None else json.dumps(self.item_ids),
            "scope_models": None if self.models is None else json.dumps(self.models),
        }


def _covers(wide: list[str] | None, narrow: list[str] | None) -> bool:
    if wide is None:
        return True
    return narrow is not None and set(narrow) <= set(wide)


WHOLE = Scope(spec="")
SCOPES = RecordKind("scope", Scope)
"""Scopes by key: `RUN_SCOPE`, or `judge_scope_key(judge)`."""

SCOPED = (
    "(:scope_items IS NULL OR r.item_id IN (SELECT value FROM json_each(:scope_items)))"
    " AND (:scope_models IS NULL OR r.model IN (SELECT value FROM json_each(:scope_models)))"
)
"""A response (r) inside a scope (its `params`)."""


def judge_scope_key(judge: str) -> str:
    """The key of the scope a judge's verdicts cover."""
    return f"judge:{judge}"
