"""A run's items: added once in one transaction, read whole, in columns for scoring, or as
the pairs a model has still to answer."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from checkbench.errors import InputError
from checkbench.schema import Item
from checkbench.store.commits import GroupCommit
from checkbench.store.queries import READ_BATCH, UNANSWERED
from checkbench.store.rows import ItemHead


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Items:
    """The items table of one open store (of the run in `run_dir`, which errors name)."""

    def __init__(self, db: sqlite3.Connection, writes: GroupCommit, run_dir: Path) -> None:
        self._db = db
        self._writes = writes
        self._run_dir = run_dir

    def add(self, items: Iterable[Item]) -> int:
        """Add items, taken one at a time, in one transaction: all of them, or none when one
        fails (an error raised by `items` too); an id already stored with different content is
        an error, not an overwrite."""
        added = 0
        with self._writes.transaction() as db:
            position = db.execute("SELECT COALESCE(MAX(position), -1) FROM items").fetchone()[0]
            for item in items:
                body = item.model_dump_json()
                checks = [[check.id, check.weight] for check in item.checklist]
                if db.execute(
                    "INSERT INTO items(position, id, rule, checks, tags, body)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    (position + 1, item.id, item.rule, _dumps(checks), _dumps(item.tags), body),
                ).rowcount:
                    position += 1
                    added += 1
                    continue
                row = db.execute("SELECT body FROM items WHERE id = ?", (item.id,)).fetchone()
                if row[0] != body:
                    raise InputError(
                        f"item '{item.id}' differs from the one already in this run",
                        path=self._run_dir,
                    )
        return added

    def all(self) -> list[Item]:
        rows = self._db.execute("SELECT body FROM items ORDER BY position")
        return [Item.model_validate_json(body) for (body,) in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM items").fetchone()[0])

    def columns(self) -> Iterator[tuple[str, str, str, str]]:
        """(id, rule, checks, tags) of every item in order, checks and tags as stored: JSON
        [[check id, weight], ...] and {facet: [value, ...]}."""
        return iter(self._db.execute("SELECT id, rule, checks, tags FROM items ORDER BY position"))

    def tag_sets(self) -> list[tuple[str, str]]:
        """(tags as stored, positions of the items that have them comma-separated, in no set
        order) for each distinct tags of the run's items."""
        return self._db.execute(
            "SELECT tags, GROUP_CONCAT(position) FROM items GROUP BY tags"
        ).fetchall()

    def heads(self) -> Iterator[ItemHead]:
        """Every item without its texts, in order, read as needed; repeated strings (rules,
        check ids, facets, tag values) are shared."""
        shared: dict[str, str] = {}
        one = shared.setdefault
        rows = self._db.execute(
            "SELECT id, rule, checks, tags, json_extract(body, '$.meta') FROM items"
            " ORDER BY position"
        )
        for item_id, rule, checks, tags, meta in rows:
            yield ItemHead(
                item_id,
                one(rule, rule),
                tuple((one(check, check), weight) for check, weight in json.loads(checks)),
                {one(f, f): [one(v, v) for v in values] for f, values in json.loads(tags).items()},
                json.loads(meta),
            )

    def unanswered(
        self, model: str, samples: int = 1, batch: int = READ_BATCH
    ) -> Iterator[tuple[Item, int]]:
        """The (item, sample index below `samples`) pairs `model` has no usable answer to, by
        item then sample, read `batch` pairs at a time."""
        last = (-1, -1)
        while rows := self._db.execute(
            UNANSWERED,
            {
                "samples": samples,
                "position": last[0],
                "sample": last[1],
                "model": model,
                "batch": batch,
            },
        ).fetchall():
            last = rows[-1][:2]
            for _, sample, body in rows:
                yield Item.model_validate_json(body), sample
