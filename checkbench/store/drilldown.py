"""The reads of a run for reports and audits: each item's marks and records for the report's
drill-down, the search over every stored text, the verdict matrix and the checks' texts. None
writes; each parses only the bodies it returns."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

from checkbench.schema import Item, Response, Verdict
from checkbench.store.queries import (
    RESPONSE_BODY,
    SEARCH_ITEMS,
    UNIT_MARKS,
    VERDICT_BODY,
    placeholders,
    stored_as_is,
)


class Drilldown:
    """Report and audit reads of one open store."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

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
