"""Group commit for a SQLite connection: writes that finish in one turn of the event loop land in
one commit, and a task can wait for its writes to be durable before it spends more.

Each write is atomic on its own (a single statement is; several share a savepoint inside the
open batch). Without a running event loop every write commits at once, as autocommit would.
With one, the batch commits at the end of the current turn of the loop (or at once past `limit`
writes), so a stage whose tasks finish together pays one commit for all of them; a task that
awaits `durable()` before its next model call can lose to a kill only work it has not been told
is safe.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

COMMIT_EVERY = 1000
"""Most writes in one batch: past this many the batch commits before the turn of the loop ends."""


class GroupCommit:
    """The write side of one connection opened in autocommit mode (isolation_level=None)."""

    def __init__(self, db: sqlite3.Connection, limit: int = COMMIT_EVERY) -> None:
        self._db = db
        self._limit = limit
        self._pending = 0
        self._explicit = False
        self._due: asyncio.Future[None] | None = None

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write, all or nothing: it joins the open transaction or the open batch."""
        if not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")
        self._db.execute("SAVEPOINT one_write")
        try:
            yield self._db
        except BaseException:
            if self._db.in_transaction:  # SQLite ends it by itself on a full disk
                self._db.execute("ROLLBACK TO one_write")
            raise
        finally:
            if self._db.in_transaction:
                self._db.execute("RELEASE one_write")
            self._written()

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        """One write of a single statement, which SQLite keeps atomic by itself: it joins the
        open transaction or the open batch without the savepoint `write` costs."""
        if not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")
        try:
            return self._db.execute(sql, parameters)
        finally:
            self._written()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Writes that land together or not at all, committed when the block ends (a block
        without awaits); the open batch is committed first."""
        self.commit()
        self._db.execute("BEGIN IMMEDIATE")
        self._explicit = True
        try:
            yield self._db
        except BaseException:
            if self._db.in_transaction:  # SQLite ends it by itself on a full disk
                self._db.execute("ROLLBACK")
            raise
        else:
            self._db.execute("COMMIT")
        finally:
            self._explicit = False

    def _written(self) -> None:
        if self._explicit:
            return
        self._pending += 1
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self._due is not None and self._due.get_loop() is not loop:
            self.commit()  # scheduled by a loop that has ended
        if loop is None or self._pending >= self._limit:
            self.commit()
        elif self._due is None:
            self._due = due = loop.create_future()
            loop.call_soon(self._commit_if_due, due)

    def _commit_if_due(self, due: asyncio.Future[None]) -> None:
        """The end-of-turn commit, unless that batch was committed already (e.g. on close)."""
        if self._due is due:
            self.commit()

    def commit(self) -> None:
        """Commit the open batch now and wake the tasks waiting for it."""
        due, self._due = self._due, None
        self._pending = 0
        try:
            if self._db.in_transaction and not self._explicit:
                self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if due is None or due.done():
                raise
            due.set_exception(exc)
            return
        if due is not None and not due.done():
            due.set_result(None)

    async def durable(self) -> None:
        """Return once every write made so far is committed (at the latest, at the end of this
        turn of the event loop)."""
        due = self._due
        if due is None:
            return
        if due.get_loop() is not asyncio.get_running_loop():
            self.commit()
            return
        await asyncio.shield(due)
