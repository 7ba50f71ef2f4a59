"""What reads a whole run without holding it: items and responses walked in batches by the long
stages, columns for scoring (no bodies parsed), and counts for progress and reports.

`RunStore` (store.py, which owns the layout) inherits these readers; they use only its
connection.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from checkbench.schema import Item, Response, Verdict

READ_BATCH = 256
"""Rows read at a time by the iterators that walk a whole run."""

_VERDICTS_OF = (
    "FROM verdicts v WHERE v.judge = :judge AND v.item_id = r.item_id AND v.model = r.model"
    " AND v.sample = r.sample"
)
_TRIED = f"EXISTS (SELECT 1 {_VERDICTS_OF})"
_TO_JUDGE = f"(NOT {_TRIED} OR EXISTS (SELECT 1 {_VERDICTS_OF} AND v.passed IS NULL))"
"""A response (r) that the judge has not fully scored: no verdict yet, or an unscored one."""
_KEPT = "(r.ok OR r.sample >= :samples OR r.model NOT IN (SELECT value FROM json_each(:answering)))"
"""A response (r) that is not a failed answer about to be asked again (see `Answering`)."""
Answering = tuple[Sequence[str], int]
"""Models about to answer the run's items, with their number of samples: their failed answers
below that sample are asked again (see `unanswered`), so a judge leaves them to the answers
that replace them."""


def _answering(answering: Answering) -> dict[str, Any]:
    models, samples = answering
    return {"answering": json.dumps(list(models)), "samples": samples}


_CHECKS_OF_SOURCE = (
    "(SELECT json_group_array(json(p.value)) FROM json_each(i.checks) p WHERE p.value ->> 0 IN"
    " (SELECT c.value ->> 'id' FROM json_each(i.body, '$.checklist') c"
    " WHERE c.value ->> 'source' = :source))"
)
"""An item's stored (check id, weight) pairs, in order, of the checks of one source; the
weights as they were written (SQLite's json() keeps a number's text)."""

_BAD_PASSED = (
    "SELECT 1 FROM verdicts WHERE judge = ? AND passed IS NOT NULL AND passed NOT IN (0, 1) LIMIT 1"
)


@dataclass(frozen=True, slots=True)
class ItemHead:
    """What scoring and the report's tables read of an item, without its texts: its id, rule,
    (check id, weight) pairs in checklist order, tags and meta."""

    id: str
    rule: str
    checks: tuple[tuple[str, float | None], ...]
    tags: dict[str, list[str]]
    meta: dict[str, Any]

    def tag(self, facet: str) -> list[str]:
        """Values of one tag facet (empty when absent), as `Item.tag`."""
        return self.tags.get(facet, [])


def _placeholders(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def _stored_as_is(needle: str) -> str:
    """The longest run of a lower-case needle that a stored JSON body holds as it is but for
    ASCII case (which SQL's LIKE ignores): ASCII or caseless characters, none that JSON
    escapes, LIKE's wildcards escaped with '!'. A text containing the needle has a body
    containing the run (bar letters such as the Kelvin sign, whose lower case is ASCII);
    '' (no run) keeps every body."""
    kept = "".join(
        c if c >= " " and c not in '"\\' and (c.isascii() or c.upper() == c) else "\0"
        for c in needle
    )
    run = max(kept.split("\0"), key=len)
    return run.replace("!", "!!").replace("%", "!%").replace("_", "!_")


class StoreReads:
    """Readers over the run store's connection."""

    _db: sqlite3.Connection

    # -- items --------------------------------------------------------------------------------
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
            "WITH RECURSIVE k(sample) AS (SELECT 0 UNION ALL SELECT sample + 1 FROM k"
            " WHERE sample + 1 < :samples)"
            " SELECT i.position, k.sample, i.body FROM items i, k"
            " WHERE (i.position, k.sample) > (:position, :sample) AND NOT EXISTS ("
            "SELECT 1 FROM responses r WHERE r.item_id = i.id AND r.model = :model"
            " AND r.sample = k.sample AND r.ok)"
            " ORDER BY i.position, k.sample LIMIT :batch",
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

    # -- responses ----------------------------------------------------------------------------
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
            "SELECT r.body FROM responses r JOIN items i ON i.id = r.item_id WHERE r.has_meta"
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
    def sample_verdicts(
        self, judge: str, *, source: str | None = None
    ) -> list[tuple[int, str, str, str, str]]:
        """(item position, model, item rule, item checks as stored, the judge's verdicts on
        the response as JSON {check id: passed 1, 0 or null}) of every response, by item
        position, model, then sample: what scores them, without a row per verdict. With
        `source`, an item's checks are only those of that source (its other checks' verdicts
        stay in the verdicts column)."""
        if self._db.execute(_BAD_PASSED, (judge,)).fetchone():  # named by the store on close
            raise ValueError("a verdict's passed column is not 1, 0 or NULL")
        checks = "i.checks" if source is None else _CHECKS_OF_SOURCE
        return self._db.execute(
            f"SELECT i.position, r.model, i.rule, {checks}, json_group_object(v.check_id,"
            " v.passed) FILTER (WHERE v.check_id IS NOT NULL)"
            " FROM responses r JOIN items i ON i.id = r.item_id LEFT JOIN verdicts v"
            " ON v.judge = :judge AND v.item_id = r.item_id AND v.model = r.model"
            " AND v.sample = r.sample"
            " GROUP BY i.position, r.model, r.sample ORDER BY i.position, r.model, r.sample",
            {"judge": judge, "source": source},
        ).fetchall()

    def count_checked_items(self, source: str | None = None) -> int:
        """The items with at least one check (of `source`, when given)."""
        checks = "i.checks" if source is None else _CHECKS_OF_SOURCE
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
        while rows := self._db.execute(
            f"SELECT r.rowid, i.body, r.body, {_TRIED} FROM responses r"
            " JOIN items i ON i.id = r.item_id"
            f" WHERE r.rowid > :last AND i.checks != '[]' AND {_TO_JUDGE} AND {_KEPT}"
            " ORDER BY r.rowid LIMIT :batch",
            {"judge": judge, "last": last, "batch": batch, **_answering(answering)},
        ).fetchall():
            last = rows[-1][0]
            for _, item, response, tried in rows:
                yield Item.model_validate_json(item), Response.model_validate_json(response), tried

    def count_judgeable(self, judge: str, *, answering: Answering = ((), 0)) -> tuple[int, int]:
        """(responses to items with a checklist, those of them `judge` has not fully scored),
        without the failed answers that `answering` names."""
        row = self._db.execute(
            f"SELECT COUNT(*), COALESCE(SUM({_TO_JUDGE}), 0) FROM responses r"
            f" JOIN items i ON i.id = r.item_id WHERE i.checks != '[]' AND {_KEPT}",
            {"judge": judge, **_answering(answering)},
        ).fetchone()
        return int(row[0]), int(row[1])

    # -- item records (the report's drill-down) -----------------------------------------------
    def unit_marks(self, judges: Sequence[str]) -> Iterator[tuple[int, str, bool, bool, bool]]:
        """(item position, model, some sample failed, some verdict passed, some failed) of
        every item a model answered, by item then model, over the verdicts of `judges`."""
        return iter(
            self._db.execute(
                "SELECT i.position, r.model, MAX(NOT r.ok),"
                " COALESCE(MAX(v.passed = 1), 0), COALESCE(MAX(v.passed = 0), 0)"
                " FROM responses r JOIN items i ON i.id = r.item_id"
                " LEFT JOIN verdicts v ON v.item_id = r.item_id AND v.model = r.model"
                f" AND v.sample = r.sample AND v.judge IN ({_placeholders(judges)})"
                " GROUP BY i.position, r.model ORDER BY i.position, r.model",
                tuple(judges),
            )
        )

    def item_records(
        self, positions: Sequence[int], judges: Sequence[str]
    ) -> list[tuple[Item, list[Response], list[Verdict]]]:
        """The items at these positions, each with its responses (by model, then sample) and
        the verdicts of `judges` on them."""
        marks = _placeholders(positions)
        items = {
            position: Item.model_validate_json(body)
            for position, body in self._db.execute(
                f"SELECT position, body FROM items WHERE position IN ({marks})", tuple(positions)
            )
        }
        ids = [item.id for item in items.values()]
        responses: dict[str, list[Response]] = {item_id: [] for item_id in ids}
        for (body,) in self._db.execute(
            f"SELECT body FROM responses WHERE item_id IN ({_placeholders(ids)})"
            " ORDER BY model, sample",
            ids,
        ):
            response = Response.model_validate_json(body)
            responses[response.item_id].append(response)
        verdicts: dict[str, list[Verdict]] = {item_id: [] for item_id in ids}
        for (body,) in self._db.execute(
            f"SELECT body FROM verdicts WHERE item_id IN ({_placeholders(ids)})"
            f" AND judge IN ({_placeholders(judges)})",
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
            "SELECT i.position FROM items i WHERE i.position > :after"
            " AND (i.body LIKE :piece ESCAPE '!'"
            "  OR EXISTS (SELECT 1 FROM responses r WHERE r.item_id = i.id"
            "   AND r.body LIKE :piece ESCAPE '!')"
            "  OR EXISTS (SELECT 1 FROM verdicts v WHERE v.item_id = i.id"
            f"   AND v.judge IN ({judge_marks}) AND v.body LIKE :piece ESCAPE '!'))"
            " AND (hit(i.id)"
            "  OR EXISTS (SELECT 1 FROM json_each(i.body, '$.messages') m"
            "   WHERE hit(json_extract(m.value, '$.content')))"
            "  OR EXISTS (SELECT 1 FROM json_each(i.body, '$.checklist') c"
            "   WHERE hit(json_extract(c.value, '$.text')))"
            "  OR hit(json_extract(i.body, '$.reference'))"
            "  OR EXISTS (SELECT 1 FROM responses r WHERE r.item_id = i.id"
            "   AND (hit(json_extract(r.body, '$.content'))"
            "   OR hit(json_extract(r.body, '$.error'))))"
            "  OR EXISTS (SELECT 1 FROM verdicts v WHERE v.item_id = i.id"
            f"   AND v.judge IN ({judge_marks}) AND (hit(json_extract(v.body, '$.reason'))"
            "   OR (v.passed IS NULL AND hit(json_extract(v.body, '$.raw'))))))"
            " ORDER BY i.position LIMIT :limit",
            {"after": after, "piece": f"%{_stored_as_is(needle)}%", "limit": limit}
            | {f"judge{k}": judge for k, judge in enumerate(judges)},
        )
        return [position for (position,) in rows]
