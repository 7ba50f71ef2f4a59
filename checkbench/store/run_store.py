"""The run store: one SQLite file (WAL) per run directory holding everything a run produced."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import Any, TypeVar

from checkbench.errors import InputError, disk_full, full_disk_error
from checkbench.inputs import output_dir
from checkbench.schema import Item, Response, Verdict
from checkbench.store import lock
from checkbench.store.answers import Answers
from checkbench.store.commits import GroupCommit
from checkbench.store.damage import DAMAGE, damaged_row
from checkbench.store.drilldown import Drilldown
from checkbench.store.files import STORE_FILE, connect
from checkbench.store.items import Items
from checkbench.store.layout import SCHEMA, SCHEMA_VERSION, check_store, migrate, stored_version
from checkbench.store.meta import Meta
from checkbench.store.queries import READ_BATCH, Answering
from checkbench.store.records import RecordKind
from checkbench.store.rows import CallRecord, ItemHead, UsageRow
from checkbench.store.scope import Scope
from checkbench.store.verdicts import Verdicts

T = TypeVar("T")


class RunStore:
    """Items, responses, verdicts and every model call of one run, resumable after a crash.

    Beside the writers, the readers that walk a whole run without holding it: items and
    responses read in batches by the long stages, columns for scoring (no bodies parsed), and
    counts for progress and reports. The store opens the file, holds the lock and commits; the
    SQL of each part is in its module (`meta`, `items`, `answers`, `verdicts`, `drilldown`),
    whose docstrings the methods here point to."""

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
            self._meta = Meta(self._db, self._writes)
            self._items = Items(self._db, self._writes, self.run_dir)
            self._answers = Answers(self._db, self._writes, writer=writer)
            self._verdicts = Verdicts(self._db, self._writes, self._meta.judge_scope)
            self._reads = Drilldown(self._db)
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

    # -- meta, models and stage records (`meta.Meta`) ----------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self._meta.set(key, value)

    def set_meta_default(self, key: str, value: Any) -> None:
        self._meta.set_default(key, value)

    def get_meta(self, key: str, default: Any = None) -> Any:
        return self._meta.get(key, default)

    def bind_model(self, name: str, identity: str) -> str:
        """The name the model with this identity is stored under in this run."""
        return self._meta.bind_model(name, identity)

    def model_identities(self) -> dict[str, str]:
        """Every stored model name with the identity (endpoint, sampling) it stands for."""
        return self._meta.model_identities()

    def set_prices(self, prices: Mapping[str, Mapping[str, Any]]) -> None:
        """Remember what the models stored under these names cost (models-file prices)."""
        self._meta.set_prices(prices)

    def prices(self) -> dict[str, dict[str, Any]]:
        """The models-file price (as JSON) each stored model had when it last ran."""
        return self._meta.prices()

    def put_record(self, kind: RecordKind[T], key: str, value: T) -> None:
        """Store one output of a stage (e.g. a build decision) under a key."""
        self._meta.put_record(kind, key, value)

    def records(
        self, kind: RecordKind[T], *, only: str | None = None, unreadable: list[str] | None = None
    ) -> dict[str, T]:
        """Every record of a kind (or the one under `only`), by key, validated."""
        return self._meta.records(kind, only=only, unreadable=unreadable)

    def scope(self, key: str) -> Scope | None:
        """The scope recorded under `key` (`scope.RUN_SCOPE`, a judge's), if one was."""
        return self._meta.scope(key)

    def judge_scope(self, judge: str) -> Scope:
        """The part of the run a judge's verdicts cover: the whole run unless a slice."""
        return self._meta.judge_scope(judge)

    # -- items (`items.Items`) ---------------------------------------------------------------
    def add_items(self, items: Iterable[Item]) -> int:
        """Add items in one transaction (all or none); how many were new."""
        return self._items.add(items)

    def items(self) -> list[Item]:
        return self._items.all()

    def count_items(self) -> int:
        return self._items.count()

    def item_columns(self) -> Iterator[tuple[str, str, str, str]]:
        """(id, rule, checks, tags) of every item in order, checks and tags as stored."""
        return self._items.columns()

    def tag_sets(self) -> list[tuple[str, str]]:
        """(tags as stored, positions of the items that have them) per distinct tags."""
        return self._items.tag_sets()

    def item_heads(self) -> Iterator[ItemHead]:
        """Every item without its texts, in order, read as needed."""
        return self._items.heads()

    def unanswered(
        self, model: str, samples: int = 1, batch: int = READ_BATCH
    ) -> Iterator[tuple[Item, int]]:
        """The (item, sample) pairs `model` has no usable answer to, read in batches."""
        return self._items.unanswered(model, samples, batch)

    # -- calls and responses (`answers.Answers`) ---------------------------------------------
    def cached_result(self, key: str) -> str | None:
        """The stored answer (JSON text) to an identical earlier request that succeeded."""
        return self._answers.cached_result(key)

    def record_call(self, call: CallRecord, *, replace: bool = False) -> None:
        """Append one model call (success or failure) to the audit log and cache."""
        self._answers.record_call(call, replace=replace)

    def usage(self, after: int = 0) -> list[UsageRow]:
        """Calls, failures, tokens and time per (model, role) of the calls after `after`."""
        return self._answers.usage(after)

    def last_call(self) -> int:
        """The id of the call stored last (0: none)."""
        return self._answers.last_call()

    def put_response(self, response: Response) -> None:
        """Store a response, replacing one of the same model, item and sample."""
        self._answers.put_response(response)

    def responses(self, model: str | None = None) -> list[Response]:
        return self._answers.responses(model)

    def models(self) -> list[str]:
        return self._answers.models()

    def count_answered(self, model: str, samples: int = 1) -> int:
        """How many (item, sample below `samples`) the model answered successfully."""
        return self._answers.count_answered(model, samples)

    def response_units(self) -> Iterator[tuple[str, str]]:
        """(item id, model) of every item a model answered, once however many samples."""
        return ((item_id, model) for item_id, model, _ in self._answers.samples())

    def response_samples(self) -> Iterator[tuple[str, str, int]]:
        """(item id, model, responses) of every item a model answered."""
        return self._answers.samples()

    def responses_with_meta(self) -> list[Response]:
        """The responses that carry meta (imported records), by model then item."""
        return self._answers.with_meta()

    def response_counts(self) -> dict[str, tuple[int, int]]:
        """model -> (responses, failed ones)."""
        return self._answers.counts()

    def response_errors(self) -> dict[str, int]:
        """Why answers failed: each error message with its count, most frequent first."""
        return self._answers.errors()

    # -- verdicts (`verdicts.Verdicts`) ------------------------------------------------------
    def put_verdicts(self, verdicts: Iterable[Verdict]) -> None:
        """Store verdicts, replacing earlier ones of one (item, model, sample, judge, check)."""
        self._verdicts.put(verdicts)

    def verdicts(self, judge: str | None = None) -> list[Verdict]:
        return self._verdicts.all(judge)

    def judges(self) -> list[str]:
        return self._verdicts.judges()

    def verdict_counts(self, judge: str) -> tuple[int, int]:
        """(verdicts, unscored ones) of a judge."""
        return self._verdicts.counts(judge)

    def sample_verdicts(
        self, judge: str, *, source: str | None = None
    ) -> list[tuple[int, str, str, str, str]]:
        """Per response: (item position, model, rule, checks, the judge's verdicts as JSON)."""
        return self._verdicts.of_samples(judge, source=source)

    def count_checked_items(self, source: str | None = None) -> int:
        """The items with at least one check (of `source`, when given)."""
        return self._verdicts.count_checked_items(source)

    def unjudged(
        self, judge: str, batch: int = READ_BATCH, *, answering: Answering = ((), 0)
    ) -> Iterator[tuple[Item, Response, bool]]:
        """The responses `judge` has not fully scored, with their items, read in batches."""
        return self._verdicts.unjudged(judge, batch, answering=answering)

    def count_judgeable(self, judge: str, *, answering: Answering = ((), 0)) -> tuple[int, int]:
        """(responses to items with a checklist, those `judge` has not fully scored)."""
        return self._verdicts.count_judgeable(judge, answering=answering)

    # -- reads for reports and audits (`drilldown.Drilldown`) --------------------------------
    def unit_marks(self, judges: Sequence[str]) -> Iterator[tuple[int, str, bool, bool, bool]]:
        """(item position, model, some sample failed, some passed, some failed) per unit."""
        return self._reads.unit_marks(judges)

    def item_records(
        self, positions: Sequence[int], judges: Sequence[str]
    ) -> list[tuple[Item, list[Response], list[Verdict]]]:
        """The items at these positions with their responses and the verdicts of `judges`."""
        return self._reads.item_records(positions, judges)

    def search_items(
        self, query: str, judges: Sequence[str], *, after: int = -1, limit: int = -1
    ) -> list[int]:
        """Positions of the items whose id or a text contains the query, ignoring case."""
        return self._reads.search_items(query, judges, after=after, limit=limit)

    def verdict_cells(self) -> list[tuple[int, str, str, int, str, int | None]]:
        """(item position, check id, model, sample, judge, passed) of every verdict."""
        return self._reads.verdict_cells()

    def check_texts(self) -> list[tuple[int, str, str, str | None]]:
        """(item position, check id, check text, last user message) of every check."""
        return self._reads.check_texts()
