"""The run store: one SQLite file (WAL) per run directory holding everything a run produced."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from checkbench.errors import InputError, disk_full, full_disk_error
from checkbench.inputs import output_dir
from checkbench.redact import redact, redact_optional
from checkbench.schema import Item, Response, Verdict
from checkbench.store import lock
from checkbench.store.commits import GroupCommit
from checkbench.store.damage import DAMAGE, damaged_row
from checkbench.store.files import STORE_FILE, connect
from checkbench.store.layout import SCHEMA, SCHEMA_VERSION, check_store, migrate, stored_version
from checkbench.store.queries import (
    BAD_PASSED,
    CHECKS_OF_SOURCE,
    KEPT,
    READ_BATCH,
    RESPONSE_BODY,
    SAMPLE_VERDICTS,
    SEARCH_ITEMS,
    TO_JUDGE,
    TRIED,
    UNANSWERED,
    UNIT_MARKS,
    USAGE,
    VERDICT_BODY,
    Answering,
    answering_params,
    placeholders,
    stored_as_is,
)
from checkbench.store.records import RecordKind
from checkbench.store.rows import (
    INSERT_CALL,
    INSERT_VERDICTS,
    RESPONSE_COLUMNS,
    ROWS_PER_STATEMENT,
    CallRecord,
    ItemHead,
    UsageRow,
    insert_rows,
    verdict_rows,
)
from checkbench.store.scope import SCOPED, SCOPES, WHOLE, Scope, judge_scope_key

T = TypeVar("T")
ANSWERS_KEPT = 1024
"""How many recent answers `put_response` may find its content among."""
PRICES_META = "prices"
"""The meta key holding, by model name, the models-file price of each model that ran."""


SHARED_TEXTS = RecordKind("request_text", str)
"""The texts that stored requests name by digest (instructions, schemas)."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class RunStore:
    """Items, responses, verdicts and every model call of one run, resumable after a crash.

    Beside the writers, the readers that walk a whole run without holding it: items and
    responses read in batches by the long stages, columns for scoring (no bodies parsed), and
    counts for progress and reports."""

    def __init__(
        self,
        run_dir: str | Path,
        *,
        writer: bool = True,
        threads: bool = False,
        read_only: bool = False,
    ) -> None:
        """Open (or create) the store; a writer holds the run directory's lock until `close`,
        so two commands never work on one run at once. Readers take no lock. With `threads`
        the store may be used from several threads, one at a time (the caller serializes).
        A `read_only` store is opened so that SQLite refuses any write (a store of an older
        layout is migrated first, as any reader does)."""
        self.run_dir = output_dir(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / STORE_FILE
        self._writer = writer
        self._closed = False
        self._succeeded: set[int] | None = None
        """Hashes of the keys of the calls that succeeded, read once (see `cached_result`)."""
        self._shared: set[str] = set()
        """Digests of the request texts this store wrote (see `record_call`)."""
        self._answers: dict[str, int] = {}
        """The answers of the calls recorded last, with the ids of their calls (see
        `put_response`)."""
        if writer:
            lock.acquire(self.run_dir)
        try:
            self._db = connect(self.path, threads=threads, read_only=read_only)
            version = stored_version(self._db, self.path)
            if read_only and version is not None and version != SCHEMA_VERSION:
                self._db.close()  # an older layout: migrated in place, as by any reader
                self._db = connect(self.path, threads=threads, read_only=False)
                version = stored_version(self._db, self.path)
            check_store(self._db, self.path, version, created=not read_only)
            self._writes = GroupCommit(self._db)
            if version in (None, SCHEMA_VERSION) and not read_only:
                self._db.executescript(SCHEMA)
                self.set_meta_default("schema_version", SCHEMA_VERSION)
            elif version != SCHEMA_VERSION:
                with self.transaction() as db:
                    migrate(db)
        except BaseException as exc:
            if writer:
                lock.release(self.run_dir)
            if disk_full(exc):
                raise full_disk_error(exc, self.path) from None
            if isinstance(exc, sqlite3.DatabaseError):  # not SQLite, or damaged
                raise InputError(f"cannot read the run store ({exc})", path=self.path) from None
            raise

    @classmethod
    def existing(
        cls,
        run_dir: str | Path,
        *,
        writer: bool = False,
        threads: bool = False,
        read_only: bool = False,
    ) -> RunStore:
        """Open a run directory that must already hold a store (to read, unless `writer`;
        `read_only` for the commands that only show a run: they cannot write to it)."""
        if not (Path(run_dir) / STORE_FILE).is_file():
            raise InputError("not a checkbench run directory (no run.sqlite)", path=run_dir)
        if (store := Path(run_dir) / STORE_FILE).stat().st_size == 0:
            raise InputError("empty run store: no run was written here", path=store)
        return cls(run_dir, writer=writer, threads=threads, read_only=read_only)

    def close(self) -> None:
        """Commit what is written, close the file and release the lock (once)."""
        if self._closed:
            return
        self._closed = True
        try:
            self._writes.commit()
        finally:
            self._db.close()
        if self._writer:
            self._writer = False
            lock.release(self.run_dir)

    def damaged_row(self) -> InputError | None:
        """The first row the readers cannot decode, as one error naming it (see `damage`)."""
        return damaged_row(self._db, self.path)

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, kind: object, exc: BaseException | None, trace: object) -> None:
        """Close; a read that failed on a damaged row becomes one error naming that row."""
        if exc is not None and disk_full(exc):
            with suppress(sqlite3.Error, OSError):
                self.close()
            raise full_disk_error(exc, self.path) from None
        damaged = self.damaged_row() if isinstance(exc, DAMAGE) and not self._closed else None
        try:
            self.close()
        except (sqlite3.Error, OSError) as failure:  # the last commit met a full disk
            if not disk_full(failure):
                raise
            raise full_disk_error(failure, self.path) from None
        if damaged is not None:
            raise damaged from None

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """Group writes so that they land together or not at all, committed when the block
        (which must not await) ends. Other writes are batched: see `checkbench.store.commits`."""
        return self._writes.transaction()

    async def durable(self) -> None:
        """Wait until every write so far is committed: a task that waits for this before its
        next model call never loses a finished call to a kill."""
        await self._writes.durable()

    # -- meta ---------------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        with self._writes.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def set_meta_default(self, key: str, value: Any) -> None:
        with self._writes.write() as db:
            db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # -- items --------------------------------------------------------------------------------
    def add_items(self, items: Iterable[Item]) -> int:
        """Add items, taken one at a time, in one transaction: all of them, or none when one
        fails (an error raised by `items` too); an id already stored with different content is
        an error, not an overwrite."""
        added = 0
        with self.transaction() as db:
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
                        path=self.run_dir,
                    )
        return added

    def items(self) -> list[Item]:
        rows = self._db.execute("SELECT body FROM items ORDER BY position")
        return [Item.model_validate_json(body) for (body,) in rows]

    def count_items(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM items").fetchone()[0])

    def item_columns(self) -> Iterator[tuple[str, str, str, str]]:
        """(id, rule, checks, tags) of every item in order, checks and tags as stored: JSON
        [[check id, weight], ...] and {facet: [value, ...]}."""
        return iter(self._db.execute("SELECT id, rule, checks, tags FROM items ORDER BY position"))

    def tag_sets(self) -> list[tuple[str, str]]:
        """(tags as stored, positions of the items that have them comma-separated, in no set
        order) for each distinct tags of the run's items."""
        return self._db.execute(
            "SELECT tags, GROUP_CONCAT(position) FROM items GROUP BY tags"
        ).fetchall()

    def item_heads(self) -> Iterator[ItemHead]:
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

    # -- calls --------------------------------------------------------------------------------
    def cached_result(self, key: str) -> str | None:
        """The stored answer (its JSON text) to an identical earlier request, if it succeeded.
        A writer reads
        which keys succeeded once, in one query, and `record_call` keeps that up to date (no
        other process writes the run), so a key it never saw succeed (every call of a fresh
        run) is a miss without a query."""
        if self._writer:
            if self._succeeded is None:
                rows = self._db.execute("SELECT key FROM calls WHERE status = 'ok'")
                self._succeeded = {hash(stored) for (stored,) in rows}
            if hash(key) not in self._succeeded:
                return None
        row = self._db.execute(
            "SELECT result FROM calls WHERE key = ? AND status = 'ok'", (key,)
        ).fetchone()
        return str(row[0]) if row else None

    def record_call(self, call: CallRecord, *, replace: bool = False) -> None:
        """Append one model call (success or failure) to the audit log and cache, redacted;
        `replace` retires an earlier success under the same key (a fresh re-ask). The texts
        the compact request names by digest are kept once, as records of kind SHARED_TEXTS."""
        ok = call.result is not None
        for digest, text in call.shared.items():
            if digest not in self._shared:
                self._writes.execute(
                    "INSERT OR IGNORE INTO records(kind, key, body) VALUES (?, ?, ?)",
                    (SHARED_TEXTS.name, digest, redact(SHARED_TEXTS.dump(text))),
                )
                self._shared.add(digest)
        row = (
            call.key,
            call.model,
            call.role,
            "ok" if ok else "error",
            redact(call.request),
            redact_optional(call.result),
            call.prompt_tokens,
            call.completion_tokens,
            call.latency_s,
            redact_optional(call.error),
            time.time(),
            call.attempts,
            call.timeouts,
        )
        if replace and ok:
            with self._writes.write() as db:
                db.execute(
                    "UPDATE calls SET status = 'replaced' WHERE key = ? AND status = 'ok'",
                    (call.key,),
                )
                written = db.execute(INSERT_CALL, row)
        else:
            written = self._writes.execute(INSERT_CALL, row)
        if ok and self._succeeded is not None:
            self._succeeded.add(hash(call.key))
        if call.answer and written.rowcount == 1 and written.lastrowid is not None:
            if len(self._answers) >= ANSWERS_KEPT:
                del self._answers[next(iter(self._answers))]
            self._answers[call.answer] = written.lastrowid

    def bind_model(self, name: str, identity: str) -> str:
        """The name under which the model with this identity is stored in this run: its own
        name the first time, the same name again when it comes back (resume), and a name
        marked with its identity's hash when the name is already another model's."""
        with self.transaction() as db:
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
            known = self.get_meta(PRICES_META, {})
            self.set_meta(PRICES_META, {**known, **prices})

    def prices(self) -> dict[str, dict[str, Any]]:
        """The price (as JSON, for the caller to validate) each stored model had in the models
        file when it last ran, by name."""
        return dict(self.get_meta(PRICES_META, {}))

    def usage(self, after: int = 0) -> list[UsageRow]:
        """Calls, failures, tokens and time per (model, role), of the calls stored after the
        call `after` (see `last_call`; 0: of every call)."""
        rows = self._db.execute(USAGE, {"after": after})
        return [UsageRow(*row) for row in rows]

    def last_call(self) -> int:
        """The id of the call stored last (0: none): the calls a command makes from now on
        have higher ones."""
        return int(self._db.execute("SELECT IFNULL(MAX(id), 0) FROM calls").fetchone()[0])

    # -- responses ----------------------------------------------------------------------------
    def put_response(self, response: Response) -> None:
        """Store a response, replacing an earlier one of the same model, item and sample. A
        content that a call this store recorded lately answered is kept once, in that call: the
        response names it."""
        call = self._answers.get(response.content) if response.content else None
        body = response if call is None else response.model_copy(update={"content": ""})
        self._writes.execute(
            "INSERT INTO responses(item_id, model, sample, body, ok, has_meta, call)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (item_id, model, sample) DO UPDATE SET body = excluded.body,"
            " ok = excluded.ok, has_meta = excluded.has_meta, call = excluded.call",
            (
                response.item_id,
                response.model,
                response.sample,
                redact(body.model_dump_json(exclude=RESPONSE_COLUMNS)),
                response.error is None,
                bool(response.meta),
                call,
            ),
        )

    def responses(self, model: str | None = None) -> list[Response]:
        query = f"SELECT {RESPONSE_BODY} FROM responses r JOIN items i ON i.id = r.item_id"
        args: tuple[str, ...] = ()
        if model is not None:
            query += " WHERE r.model = ?"
            args = (model,)
        rows = self._db.execute(query + " ORDER BY r.model, i.position, r.sample", args)
        return [Response.model_validate_json(body) for (body,) in rows]

    def models(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT model FROM responses ORDER BY model")
        return [model for (model,) in rows]

    def count_answered(self, model: str, samples: int = 1) -> int:
        """How many (item, sample below `samples`) the model has already answered
        successfully."""
        query = "SELECT COUNT(*) FROM responses WHERE model = ? AND ok AND sample < ?"
        return int(self._db.execute(query, (model, samples)).fetchone()[0])

    def response_units(self) -> Iterator[tuple[str, str]]:
        """(item id, model) of every item a model answered, once however many samples."""
        return ((item_id, model) for item_id, model, _ in self.response_samples())

    def response_samples(self) -> Iterator[tuple[str, str, int]]:
        """(item id, model, responses) of every item a model answered: how many samples."""
        return iter(
            self._db.execute(
                "SELECT item_id, model, COUNT(*) FROM responses GROUP BY item_id, model"
            )
        )

    def responses_with_meta(self) -> list[Response]:
        """The responses that carry meta (imported records), by model then item."""
        rows = self._db.execute(
            f"SELECT {RESPONSE_BODY} FROM responses r JOIN items i ON i.id = r.item_id"
            " WHERE r.has_meta"
            " ORDER BY r.model, i.position"
        )
        return [Response.model_validate_json(body) for (body,) in rows]

    def response_counts(self) -> dict[str, tuple[int, int]]:
        """model -> (responses, failed ones)."""
        rows = self._db.execute(
            "SELECT model, COUNT(*), SUM(NOT ok) FROM responses GROUP BY model ORDER BY model"
        )
        return {model: (total, failed) for model, total, failed in rows}

    def response_errors(self) -> dict[str, int]:
        """Why answers failed: each error message with its count, most frequent first."""
        rows = self._db.execute(
            "SELECT json_extract(body, '$.error') AS error, COUNT(*) AS n FROM responses"
            " WHERE NOT ok GROUP BY error ORDER BY n DESC, error"
        )
        return dict(rows.fetchall())

    # -- verdicts -----------------------------------------------------------------------------
    def put_verdicts(self, verdicts: Iterable[Verdict]) -> None:
        """Store verdicts, replacing earlier ones of one (item, model, sample, judge, check);
        a checklist of up to `ROWS_PER_STATEMENT` in one statement (atomic by itself)."""
        rows = verdict_rows(verdicts)
        if len(rows) > ROWS_PER_STATEMENT:
            with self._writes.write() as db:
                db.executemany(insert_rows(INSERT_VERDICTS, rows[:1]), rows)
        elif rows:
            self._writes.execute(insert_rows(INSERT_VERDICTS, rows), [f for r in rows for f in r])

    def verdicts(self, judge: str | None = None) -> list[Verdict]:
        query = f"SELECT {VERDICT_BODY} FROM verdicts v"
        args: tuple[str, ...] = ()
        if judge is not None:
            query += " WHERE judge = ?"
            args = (judge,)
        return [Verdict.model_validate_json(body) for (body,) in self._db.execute(query, args)]

    def sample_verdicts(
        self, judge: str, *, source: str | None = None
    ) -> list[tuple[int, str, str, str, str]]:
        """(item position, model, item rule, item checks as stored, the judge's verdicts on
        the response as JSON {check id: passed 1, 0 or null}) of every response, by item
        position, model, then sample: what scores them, without a row per verdict. With
        `source`, an item's checks are only those of that source (its other checks' verdicts
        stay in the verdicts column)."""
        if self._db.execute(BAD_PASSED, (judge,)).fetchone():  # named by the store on close
            raise ValueError("a verdict's passed column is not 1, 0 or NULL, or its check_id NULL")
        checks = "i.checks" if source is None else CHECKS_OF_SOURCE
        query = SAMPLE_VERDICTS.format(checks=checks, scope=SCOPED)
        params = {"judge": judge, "source": source, **self.judge_scope(judge).params()}
        return self._db.execute(query, params).fetchall()

    def count_checked_items(self, source: str | None = None) -> int:
        """The items with at least one check (of `source`, when given)."""
        checks = "i.checks" if source is None else CHECKS_OF_SOURCE
        query = f"SELECT COUNT(*) FROM items i WHERE {checks} != '[]'"
        return int(self._db.execute(query, {"source": source}).fetchone()[0])

    def verdict_counts(self, judge: str) -> tuple[int, int]:
        """(verdicts, unscored ones) of a judge."""
        row = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(passed IS NULL), 0) FROM verdicts WHERE judge = ?",
            (judge,),
        ).fetchone()
        return int(row[0]), int(row[1])

    def unjudged(
        self, judge: str, batch: int = READ_BATCH, *, answering: Answering = ((), 0)
    ) -> Iterator[tuple[Item, Response, bool]]:
        """The responses to items with a checklist that `judge` has not fully scored, each
        with its item and whether the judge tried it before; read `batch` at a time. The
        failed answers that `answering` names are left out (see `Answering`)."""
        last = -1
        scope = self.judge_scope(judge).params()
        while rows := self._db.execute(
            f"SELECT r.rowid, i.body, {RESPONSE_BODY}, {TRIED} FROM responses r"
            " JOIN items i ON i.id = r.item_id"
            f" WHERE r.rowid > :last AND i.checks != '[]' AND {TO_JUDGE} AND {KEPT}"
            f" AND {SCOPED} ORDER BY r.rowid LIMIT :batch",
            {
                "judge": judge,
                "last": last,
                "batch": batch,
                **answering_params(answering),
                **scope,
            },
        ).fetchall():
            last = rows[-1][0]
            for _, item, response, tried in rows:
                yield Item.model_validate_json(item), Response.model_validate_json(response), tried

    def count_judgeable(self, judge: str, *, answering: Answering = ((), 0)) -> tuple[int, int]:
        """(responses to items with a checklist, those of them `judge` has not fully scored),
        without the failed answers that `answering` names."""
        row = self._db.execute(
            f"SELECT COUNT(*), COALESCE(SUM({TO_JUDGE}), 0) FROM responses r"
            f" JOIN items i ON i.id = r.item_id WHERE i.checks != '[]' AND {KEPT} AND {SCOPED}",
            {"judge": judge, **answering_params(answering), **self.judge_scope(judge).params()},
        ).fetchone()
        return int(row[0]), int(row[1])

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

    def verdict_cells(self) -> list[tuple[int, str, str, int, str, int | None]]:
        """(item position, check id, model, sample, judge, passed 1, 0 or None) of every
        verdict, by item position: the audit's verdict matrix, no body parsed."""
        return self._db.execute(
            "SELECT i.position, v.check_id, v.model, v.sample, v.judge, v.passed"
            " FROM verdicts v JOIN items i ON i.id = v.item_id ORDER BY i.position"
        ).fetchall()

    def check_texts(self) -> list[tuple[int, str, str, str | None]]:
        """(item position, check id, check text, the item's last user message) of every
        check, by item position then checklist order."""
        return self._db.execute(
            "SELECT i.position, c.value ->> 'id', c.value ->> 'text', (SELECT m.value ->>"
            " 'content' FROM json_each(i.body, '$.messages') m WHERE m.value ->> 'role' ="
            " 'user' ORDER BY m.key DESC LIMIT 1) FROM items i,"
            " json_each(i.body, '$.checklist') c ORDER BY i.position, c.key"
        ).fetchall()

    def judges(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT judge FROM verdicts ORDER BY judge")
        return [judge for (judge,) in rows]

    # -- item records (the report's drill-down) -----------------------------------------------
    def unit_marks(self, judges: Sequence[str]) -> Iterator[tuple[int, str, bool, bool, bool]]:
        """(item position, model, some sample failed, some verdict passed, some failed) of
        every item a model answered, by item then model, over the verdicts of `judges`."""
        query = UNIT_MARKS.format(judges=placeholders(judges))
        return iter(self._db.execute(query, tuple(judges)))

    def item_records(
        self, positions: Sequence[int], judges: Sequence[str]
    ) -> list[tuple[Item, list[Response], list[Verdict]]]:
        """The items at these positions, each with its responses (by model, then sample) and
        the verdicts of `judges` on them."""
        marks = placeholders(positions)
        items = {
            position: Item.model_validate_json(body)
            for position, body in self._db.execute(
                f"SELECT position, body FROM items WHERE position IN ({marks})", tuple(positions)
            )
        }
        ids = [item.id for item in items.values()]
        responses: dict[str, list[Response]] = {item_id: [] for item_id in ids}
        for (body,) in self._db.execute(
            f"SELECT {RESPONSE_BODY} FROM responses r WHERE r.item_id IN ({placeholders(ids)})"
            " ORDER BY model, sample",
            ids,
        ):
            response = Response.model_validate_json(body)
            responses[response.item_id].append(response)
        verdicts: dict[str, list[Verdict]] = {item_id: [] for item_id in ids}
        for (body,) in self._db.execute(
            f"SELECT {VERDICT_BODY} FROM verdicts v WHERE item_id IN ({placeholders(ids)})"
            f" AND judge IN ({placeholders(judges)})",
            (*ids, *judges),
        ):
            verdict = Verdict.model_validate_json(body)
            verdicts[verdict.item_id].append(verdict)
        return [(items[p], responses[items[p].id], verdicts[items[p].id]) for p in positions]

    def search_items(
        self, query: str, judges: Sequence[str], *, after: int = -1, limit: int = -1
    ) -> list[int]:
        """Positions after `after` (at most `limit`; -1: all) of the items whose id or a text
        contains the query, ignoring case: a message, a check, the reference, a response or
        its error, or a verdict of `judges` (its reason, and its raw answer when unscored).
        SQL's LIKE over the stored bodies picks the candidates; only these are decoded."""
        needle = query.lower()

        def hit(text: str | None) -> bool:
            return text is not None and needle in text.lower()

        self._db.create_function("hit", 1, hit, deterministic=True)
        judge_marks = ",".join(f":judge{k}" for k in range(len(judges)))
        rows = self._db.execute(
            SEARCH_ITEMS.format(judges=judge_marks, body=RESPONSE_BODY),
            {"after": after, "piece": f"%{stored_as_is(needle)}%", "limit": limit}
            | {f"judge{k}": judge for k, judge in enumerate(judges)},
        )
        return [position for (position,) in rows]
