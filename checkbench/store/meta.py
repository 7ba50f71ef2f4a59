"""What a run keeps about itself beside its items, answers and verdicts: meta keys, the names
its models are stored under with their prices, the stage outputs by record kind, and the
scopes among them (the part of the run a slice or a judge covers)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import ValidationError

from checkbench.redact import redact
from checkbench.store.commits import GroupCommit
from checkbench.store.records import RecordKind
from checkbench.store.scope import SCOPES, WHOLE, Scope, judge_scope_key

T = TypeVar("T")
PRICES_META = "prices"
"""The meta key holding, by model name, the models-file price of each model that ran."""


class Meta:
    """The meta, models and records tables of one open store."""

    def __init__(self, db: sqlite3.Connection, writes: GroupCommit) -> None:
        self._db = db
        self._writes = writes

    # -- meta keys ----------------------------------------------------------------------------
    def set(self, key: str, value: Any) -> None:
        with self._writes.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def set_default(self, key: str, value: Any) -> None:
        with self._writes.write() as db:
            db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def get(self, key: str, default: Any = None) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # -- models -------------------------------------------------------------------------------
    def bind_model(self, name: str, identity: str) -> str:
        """The name under which the model with this identity is stored in this run: its own
        name the first time, the same name again when it comes back (resume), and a name
        marked with its identity's hash when the name is already another model's."""
        with self._writes.transaction() as db:
            row = db.execute("SELECT name FROM models WHERE identity = ?", (identity,)).fetchone()
            if row is not None:
                return str(row[0])
            taken = db.execute("SELECT 1 FROM models WHERE name = ?", (name,)).fetchone()
            if taken:
                name = f"{name}~{hashlib.sha256(identity.encode()).hexdigest()[:6]}"
            db.execute("INSERT INTO models(name, identity) VALUES (?, ?)", (name, identity))
            return name

    def model_identities(self) -> dict[str, str]:
        """Every stored model name with the identity (endpoint, sampling) it stands for."""
        return dict(self._db.execute("SELECT name, identity FROM models ORDER BY name"))

    def set_prices(self, prices: Mapping[str, Mapping[str, Any]]) -> None:
        """Remember what the models stored under these names cost (their models-file prices
        as they ran, as JSON), beside the prices recorded before, so a report of the run bills
        them."""
        if prices:
            known = self.get(PRICES_META, {})
            self.set(PRICES_META, {**known, **prices})

    def prices(self) -> dict[str, dict[str, Any]]:
        """The price (as JSON, for the caller to validate) each stored model had in the models
        file when it last ran, by name."""
        return dict(self.get(PRICES_META, {}))

    # -- stage records ------------------------------------------------------------------------
    def put_record(self, kind: RecordKind[T], key: str, value: T) -> None:
        """Store one output of a stage (e.g. a build decision) under a key, as its kind's JSON."""
        with self._writes.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO records(kind, key, body) VALUES (?, ?, ?)",
                (kind.name, key, redact(kind.dump(value))),
            )

    def records(
        self, kind: RecordKind[T], *, only: str | None = None, unreadable: list[str] | None = None
    ) -> dict[str, T]:
        """Every record of a kind (only the one under key `only`, when given), by key, in
        insertion order, validated. One that does not validate fails the read (named by the
        store on close), or with `unreadable` is left out and described there in one line."""
        query = "SELECT key, body FROM records WHERE kind = ?"
        args: tuple[str, ...] = (kind.name,)
        if only is not None:
            query += " AND key = ?"
            args += (only,)
        valid: dict[str, T] = {}
        for key, body in self._db.execute(query + " ORDER BY rowid", args):
            try:
                valid[key] = kind.load(body)
            except ValidationError as exc:
                if unreadable is None:
                    raise
                unreadable.append(kind.problem(key, exc))
        return valid

    def scope(self, key: str) -> Scope | None:
        """The scope recorded under `key` (`scope.RUN_SCOPE`, a judge's), if one was."""
        return self.records(SCOPES, only=key).get(key)

    def judge_scope(self, judge: str) -> Scope:
        """The part of the run a judge's verdicts cover (see `scope`): the whole run unless
        it judged a slice."""
        return self.scope(judge_scope_key(judge)) or WHOLE
