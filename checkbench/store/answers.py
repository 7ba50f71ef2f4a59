"""A run's answers: every model call in the audit log (which is also the cache of identical
requests), with the usage it adds up to, and the candidates' responses, each body kept once
(a response whose content a recorded call holds names that call)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator

from checkbench.redact import redact, redact_optional
from checkbench.schema import Response
from checkbench.store.commits import GroupCommit
from checkbench.store.queries import RESPONSE_BODY, USAGE
from checkbench.store.records import RecordKind
from checkbench.store.rows import INSERT_CALL, RESPONSE_COLUMNS, CallRecord, UsageRow

ANSWERS_KEPT = 1024
"""How many recent answers `put_response` may find its content among."""
SHARED_TEXTS = RecordKind("request_text", str)
"""The texts that stored requests name by digest (instructions, schemas)."""


class Answers:
    """The calls and responses tables of one open store; a `writer` (no other process writes
    the run) keeps what it wrote in mind to skip queries."""

    def __init__(self, db: sqlite3.Connection, writes: GroupCommit, *, writer: bool) -> None:
        self._db = db
        self._writes = writes
        self._writer = writer
        self._succeeded: set[int] | None = None
        """Hashes of the keys of the calls that succeeded, read once (see `cached_result`)."""
        self._shared: set[str] = set()
        """Digests of the request texts this store wrote (see `record_call`)."""
        self._answers: dict[str, int] = {}
        """The answers of the calls recorded last, with the ids of their calls (see
        `put_response`)."""

    # -- calls --------------------------------------------------------------------------------
    def cached_result(self, key: str) -> str | None:
        """The stored answer (its JSON text) to an identical earlier request, if it succeeded.
        A writer reads which keys succeeded once, in one query, and `record_call` keeps that
        up to date (no other process writes the run), so a key it never saw succeed (every
        call of a fresh run) is a miss without a query."""
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

    def samples(self) -> Iterator[tuple[str, str, int]]:
        """(item id, model, responses) of every item a model answered: how many samples."""
        return iter(
            self._db.execute(
                "SELECT item_id, model, COUNT(*) FROM responses GROUP BY item_id, model"
            )
        )

    def with_meta(self) -> list[Response]:
        """The responses that carry meta (imported records), by model then item."""
        rows = self._db.execute(
            f"SELECT {RESPONSE_BODY} FROM responses r JOIN items i ON i.id = r.item_id"
            " WHERE r.has_meta"
            " ORDER BY r.model, i.position"
        )
        return [Response.model_validate_json(body) for (body,) in rows]

    def counts(self) -> dict[str, tuple[int, int]]:
        """model -> (responses, failed ones)."""
        rows = self._db.execute(
            "SELECT model, COUNT(*), SUM(NOT ok) FROM responses GROUP BY model ORDER BY model"
        )
        return {model: (total, failed) for model, total, failed in rows}

    def errors(self) -> dict[str, int]:
        """Why answers failed: each error message with its count, most frequent first."""
        rows = self._db.execute(
            "SELECT json_extract(body, '$.error') AS error, COUNT(*) AS n FROM responses"
            " WHERE NOT ok GROUP BY error ORDER BY n DESC, error"
        )
        return dict(rows.fetchall())
