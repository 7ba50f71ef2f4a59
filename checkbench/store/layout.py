"""The run store's layout: its tables, their version, and the named steps that migrate a store
of an earlier layout in place; a version no step starts from is refused in one line."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from checkbench.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    position INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, rule TEXT NOT NULL,
    checks TEXT NOT NULL, tags TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL, model TEXT NOT NULL, role TEXT NOT NULL, status TEXT NOT NULL,
    request TEXT NOT NULL, result TEXT, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, latency_s REAL NOT NULL DEFAULT 0,
    error TEXT, created_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 1,
    timeouts INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS models (name TEXT PRIMARY KEY, identity TEXT NOT NULL UNIQUE);
CREATE UNIQUE INDEX IF NOT EXISTS calls_ok ON calls(key) WHERE status = 'ok';
CREATE TABLE IF NOT EXISTS responses (
    item_id TEXT NOT NULL, model TEXT NOT NULL, body TEXT NOT NULL, ok INTEGER NOT NULL,
    has_meta INTEGER NOT NULL, sample INTEGER NOT NULL DEFAULT 0, call INTEGER,
    PRIMARY KEY (item_id, model, sample));
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, key));
CREATE TABLE IF NOT EXISTS verdicts (
    item_id TEXT NOT NULL, model TEXT NOT NULL, judge TEXT NOT NULL, check_id TEXT NOT NULL,
    passed INTEGER, body TEXT NOT NULL, sample INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (item_id, model, sample, judge, check_id));
CREATE INDEX IF NOT EXISTS verdicts_by_judge
    ON verdicts(judge, item_id, model, sample, check_id, passed);
"""
"""calls.id is a plain rowid: no row is ever deleted, so ids follow the order of the calls
without AUTOINCREMENT's bookkeeping (stores made with it read and write the same).
responses.call names the call whose result holds the response's content (the body's content
is then empty: the answer is stored once); NULL when the body holds it. The bodies of
responses and verdicts leave out the fields their columns hold (see `queries`)."""


@dataclass(frozen=True)
class Migration:
    """One step from layout `source` to layout `target`, run inside the one transaction that
    migrates a store."""

    name: str
    source: int
    target: int
    apply: Callable[[sqlite3.Connection], None]


def _script(db: sqlite3.Connection, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _by_sample(db: sqlite3.Connection) -> None:
    """Responses and verdicts rebuilt with a `sample` column, part of their keys (0 for every
    row), in their order (the judge walks responses by rowid)."""
    _script(
        db,
        """
        ALTER TABLE responses RENAME TO responses_v3;
        ALTER TABLE verdicts RENAME TO verdicts_v3;
        DROP INDEX verdicts_by_judge;
        CREATE TABLE responses (
            item_id TEXT NOT NULL, model TEXT NOT NULL, body TEXT NOT NULL, ok INTEGER NOT NULL,
            has_meta INTEGER NOT NULL, sample INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (item_id, model, sample));
        CREATE TABLE verdicts (
            item_id TEXT NOT NULL, model TEXT NOT NULL, judge TEXT NOT NULL,
            check_id TEXT NOT NULL, passed INTEGER, body TEXT NOT NULL,
            sample INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (item_id, model, sample, judge, check_id));
        CREATE INDEX verdicts_by_judge
            ON verdicts(judge, item_id, model, sample, check_id, passed);
        INSERT INTO responses(item_id, model, body, ok, has_meta)
            SELECT item_id, model, body, ok, has_meta FROM responses_v3 ORDER BY rowid;
        INSERT INTO verdicts(item_id, model, judge, check_id, passed, body)
            SELECT item_id, model, judge, check_id, passed, body FROM verdicts_v3 ORDER BY rowid;
        DROP TABLE responses_v3;
        DROP TABLE verdicts_v3;
        """,
    )


def _answers_once(db: sqlite3.Connection) -> None:
    """Responses may name the call that holds their content (`responses.call`); the rows
    already stored keep their content in their bodies."""
    db.execute("ALTER TABLE responses ADD COLUMN call INTEGER")


MIGRATIONS = [
    Migration("responses and verdicts by sample", 3, 4, _by_sample),
    Migration("each answer stored once", 4, 5, _answers_once),
]
"""Every step, in order: a store of any `source` here is brought to SCHEMA_VERSION."""
SCHEMA_VERSION = MIGRATIONS[-1].target
"""5: a response made by a call names it and keeps its content there only; bodies of
responses and verdicts leave out what their columns hold. 4: responses and
verdicts carry a `sample` column (`--samples K`), part of their keys. 3: items keep their rule,
(check id, weight) pairs and tags in columns beside the body, so scoring reads no bodies; an
index serves one judge's verdicts without their bodies; responses flag the ones that carry
meta. 2: responses carry `meta` (published records) and FB-Bench ids hash whitespace-free
text."""


def _version(db: sqlite3.Connection) -> object:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return json.loads(row[0]) if row else None


def stored_version(db: sqlite3.Connection, path: Path) -> int | None:
    """The layout version of the store open on `db` (None for a new store); one no migration
    brings to this checkbench's layout is refused, `db` closed, before anything is touched."""
    has_meta = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return None
    found = _version(db)
    if found == SCHEMA_VERSION or found in {step.source for step in MIGRATIONS}:
        return int(found)  # type: ignore[call-overload]
    db.close()
    newer = isinstance(found, int) and found > SCHEMA_VERSION
    raise InputError(
        f"run store layout version {found} is not this checkbench's ({SCHEMA_VERSION}): "
        + (
            "it was written by a newer checkbench; upgrade checkbench to read it"
            if newer
            else "it was written by an older checkbench; rerun into a new run directory"
        ),
        path=path,
    )


def migrate(db: sqlite3.Connection) -> list[str]:
    """Bring the store to SCHEMA_VERSION in place, inside the caller's one transaction: each
    step from the stored version on, in order; the names of the steps run (none when another
    process migrated it meanwhile). A reader migrates too: the file must be writable."""
    done = []
    for step in MIGRATIONS:
        if _version(db) == step.source:
            step.apply(db)
            db.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(step.target),)
            )
            done.append(step.name)
    return done
