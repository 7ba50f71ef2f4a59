"""A run's verdicts: stored a checklist per statement, read whole, or in columns (what scores
them, without a row per verdict), and the responses a judge has still to score, each read
within the judge's scope."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator

from checkbench.schema import Item, Response, Verdict
from checkbench.store.commits import GroupCommit
from checkbench.store.queries import (
    BAD_PASSED,
    CHECKS_OF_SOURCE,
    KEPT,
    READ_BATCH,
    RESPONSE_BODY,
    SAMPLE_VERDICTS,
    TO_JUDGE,
    TRIED,
    VERDICT_BODY,
    Answering,
    answering_params,
)
from checkbench.store.rows import INSERT_VERDICTS, ROWS_PER_STATEMENT, insert_rows, verdict_rows
from checkbench.store.scope import SCOPED, Scope


class Verdicts:
    """The verdicts table of one open store; `scope` gives the part of the run a judge's
    verdicts cover (`Meta.judge_scope`)."""

    def __init__(
        self, db: sqlite3.Connection, writes: GroupCommit, scope: Callable[[str], Scope]
    ) -> None:
        self._db = db
        self._writes = writes
        self._scope = scope

    def put(self, verdicts: Iterable[Verdict]) -> None:
        """Store verdicts, replacing earlier ones of one (item, model, sample, judge, check);
        a checklist of up to `ROWS_PER_STATEMENT` in one statement (atomic by itself)."""
        rows = verdict_rows(verdicts)
        if len(rows) > ROWS_PER_STATEMENT:
            with self._writes.write() as db:
                db.executemany(insert_rows(INSERT_VERDICTS, rows[:1]), rows)
        elif rows:
            self._writes.execute(insert_rows(INSERT_VERDICTS, rows), [f for r in rows for f in r])

    def all(self, judge: str | None = None) -> list[Verdict]:
        query = f"SELECT {VERDICT_BODY} FROM verdicts v"
        args: tuple[str, ...] = ()
        if judge is not None:
            query += " WHERE judge = ?"
            args = (judge,)
        return [Verdict.model_validate_json(body) for (body,) in self._db.execute(query, args)]

    def judges(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT judge FROM verdicts ORDER BY judge")
        return [judge for (judge,) in rows]

    def counts(self, judge: str) -> tuple[int, int]:
        """(verdicts, unscored ones) of a judge."""
        row = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(passed IS NULL), 0) FROM verdicts WHERE judge = ?",
            (judge,),
        ).fetchone()
        return int(row[0]), int(row[1])

    def of_samples(
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
        params = {"judge": judge, "source": source, **self._scope(judge).params()}
        return self._db.execute(query, params).fetchall()

    def count_checked_items(self, source: str | None = None) -> int:
        """The items with at least one check (of `source`, when given)."""
        checks = "i.checks" if source is None else CHECKS_OF_SOURCE
        query = f"SELECT COUNT(*) FROM items i WHERE {checks} != '[]'"
        return int(self._db.execute(query, {"source": source}).fetchone()[0])

    def unjudged(
        self, judge: str, batch: int = READ_BATCH, *, answering: Answering = ((), 0)
    ) -> Iterator[tuple[Item, Response, bool]]:
        """The responses to items with a checklist that `judge` has not fully scored, each
        with its item and whether the judge tried it before; read `batch` at a time. The
        failed answers that `answering` names are left out (see `Answering`)."""
        last = -1
        scope = self._scope(judge).params()
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
            {"judge": judge, **answering_params(answering), **self._scope(judge).params()},
        ).fetchone()
        return int(row[0]), int(row[1])
