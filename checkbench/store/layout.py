"""The run store's layout: its tables, their version, and the in-place migration of the one
earlier layout that can be migrated (v3); other versions are refused in one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from checkbench.errors import InputError

SCHEMA_VERSION = 4
"""4: responses and verdicts carry a `sample` column (`--samples K`), part of their keys; a
v3 store is migrated in place (every row sample 0). 3: items keep their rule, (check id,
weight) pairs and tags in columns beside the body, so scoring reads no bodies; an index serves
one judge's verdicts without their bodies; responses flag the ones that carry meta. 2:
responses carry `meta` (published records) and FB-Bench ids hash whitespace-free text."""

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
    has_meta INTEGER NOT NULL, sample INTEGER NOT NULL DEFAULT 0,
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
without AUTOINCREMENT's bookkeeping (v4 stores made with it read and write the same)."""

_FROM_V3 = """
ALTER TABLE responses RENAME TO responses_v3;
ALTER TABLE verdicts RENAME TO verdicts_v3;
DROP INDEX verdicts_by_judge;
"""
"""Before v4's tables are made: v3's responses and verdicts set aside, to be copied over."""

_COPY_V3 = """
INSERT INTO responses(item_id, model, body, ok, has_meta)
    SELECT item_id, model, body, ok, has_meta FROM responses_v3 ORDER BY rowid;
INSERT INTO verdicts(item_id, model, judge, check_id, passed, body)
    SELECT item_id, model, judge, check_id, passed, body FROM verdicts_v3 ORDER BY rowid;
DROP TABLE responses_v3;
DROP TABLE verdicts_v3;
"""
"""v3's rows in v4's tables, in their order (the judge walks responses by rowid), sample 0."""


def stored_version(db: sqlite3.Connection, path: Path) -> int | None:
    """The layout version of the store open on `db` (None for a new store); one written by a
    checkbench with another layout but v3 (migrated) is refused, `db` closed, before anything
    is touched."""
    has_meta = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    found = json.loads(row[0]) if row else None
    if found in (3, SCHEMA_VERSION):
        return int(found)
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


def migrate_v3(db: sqlite3.Connection) -> None:
    """Bring a v3 store to v4 in place, inside the caller's one transaction: responses and
    verdicts rebuilt with a `sample` column (0 for every row), so a run of an earlier
    checkbench resumes. A reader migrates too: the file must be writable."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if json.loads(row[0]) != 3:
        return  # migrated meanwhile by another process
    for statement in (_FROM_V3 + SCHEMA + _COPY_V3).split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
