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
    PRIMARY KEY (item_id, model, sample, judge, check_id)) WITHOUT ROWID;
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


def _verdicts_keyed(db: sqlite3.Connection) -> None:
    """Verdicts kept in their key's b-tree (WITHOUT ROWID): the key is stored once, not in a
    rowid table and again in its index."""
    _script(
        db,
        """
        ALTER TABLE verdicts RENAME TO verdicts_v5;
        DROP INDEX verdicts_by_judge;
        CREATE TABLE verdicts (
            item_id TEXT NOT NULL, model TEXT NOT NULL, judge TEXT NOT NULL,
            check_id TEXT NOT NULL, passed INTEGER, body TEXT NOT NULL,
            sample INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (item_id, model, sample, judge, check_id)) WITHOUT ROWID;
        CREATE INDEX verdicts_by_judge
            ON verdicts(judge, item_id, model, sample, check_id, passed);
        INSERT INTO verdicts(item_id, model, judge, check_id, passed, body, sample)
            SELECT item_id, model, judge, check_id, passed, body, sample FROM verdicts_v5;
        DROP TABLE verdicts_v5;
        """,
    )


MIGRATIONS = [
    Migration("responses and verdicts by sample", 3, 4, _by_sample),
    Migration("each answer stored once", 4, 5, _answers_once),
    Migration("verdicts without a rowid", 5, 6, _verdicts_keyed),
]
"""Every step, in order: a store of any `source` here is brought to SCHEMA_VERSION."""
SCHEMA_VERSION = MIGRATIONS[-1].target
"""6: verdicts live in their key's b-tree (no rowid table beside it). 5: a response made by a
call names it and keeps its content there only; bodies of responses and verdicts leave out what
their columns hold. 4: responses and verdicts carry a `sample` column (`--samples K`), part of
their keys. 3: items keep their rule, (check id, weight) pairs and tags in columns beside the
body, so scoring reads no bodies; an index serves one judge's verdicts without their bodies;
responses flag the ones that carry meta. 2: responses carry `meta` (published records) and
FB-Bench ids hash whitespace-free text."""


def _version(db: sqlite3.Connection) -> object:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        return None
    try:
        return json.loads(row[0])
    except (TypeError, ValueError):
        return row[0]


TABLES = ("meta", "items", "calls", "models", "responses", "records", "verdicts")
"""The tables of a store of this layout: one without any of them is damaged."""


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _refuse(db: sqlite3.Connection, message: str, path: Path) -> InputError:
    """`db` closed, and the error naming the store that it is not one checkbench may use."""
    db.close()
    return InputError(message, path=path)


def check_store(
    db: sqlite3.Connection, path: Path, version: int | None, *, created: bool = True
) -> None:
    """Refuse, before anything is written, an SQLite file that holds tables but is no
    checkbench store (or, unless a store may be `created` here, none at all), and a store of
    this layout that lost a table."""
    tables = _tables(db)
    if version is None and not created and not tables:
        raise _refuse(db, "not a checkbench run store: an SQLite file without tables", path)
    if version is None and tables:
        shown = ", ".join(sorted(tables)[:5])
        raise _refuse(
            db, f"not a checkbench run store: an SQLite file with other tables ({shown})", path
        )
    missing = [name for name in TABLES if name not in tables]
    if version == SCHEMA_VERSION and missing:
        raise _refuse(
            db,
            f"damaged run store: table {missing[0]} is missing; rerun into a new run directory",
            path,
        )


def stored_version(db: sqlite3.Connection, path: Path) -> int | None:
    """The layout version of the store open on `db` (None for a new store); one no migration
    brings to this checkbench's layout is refused, `db` closed, before anything is touched."""
    has_meta = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return None
    found = _version(db)
    known = isinstance(found, int) and not isinstance(found, bool)
    if known and (found == SCHEMA_VERSION or found in {step.source for step in MIGRATIONS}):
        return int(found)  # type: ignore[call-overload]
    db.close()
    if not known:
        raise InputError(
            f"run store layout version {found!r} is not a version number: not a checkbench "
            "run store, or a damaged one",
            path=path,
        )
    newer = found > SCHEMA_VERSION  # type: ignore[operator]
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
