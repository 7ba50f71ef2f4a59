"""The item drill-down: a small index of every item for filtering, and item records (the
conversation, checklist, responses and verdicts) encoded a page at a time.

Both use positional arrays so that a run with 100,000 verdicts stays compact; the decoder in
assets/report.js mirrors these layouts.

Index (embedded in every page; `models`, `judges` and `tags` are lookup tables):
    items[i] = [id, [tag, ...], [[model, flags, score per judge...], ...]]
    flags: PASS | FAIL (some check passed / failed), UNSCORED (unscored by some judge: a check
    without a usable verdict), ERROR (the model gave no usable answer); score in [0, 1] or null.

Chunk (the records of some items): {"strings": [...], "labels": [...], "records": [...]}
    record = [rule, [[role, text], ...], [[check_id, text, weight, source], ...], reference,
              [[model, content, error, prompt_tokens, completion_tokens, latency_s,
                [[judge, check, passed, reason, p_yes, raw], ...]], ...]]
    Every free text is an index into `strings` (each distinct text stored once) or null; rule,
    role, check_id and source index `labels`; passed is 1, 0 or null (unscored); `raw` is the
    judge's raw answer, kept for unscored verdicts only.

Records and search read the store as they are asked for (the store may be shared by the threads
of `checkbench view`: each read holds a lock). Search matches an item when the query occurs,
ignoring case, in its id or in any of its texts (the `strings` its record refers to), the same
definition in the browser and the server.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from itertools import groupby
from typing import Any

import numpy as np

from checkbench.report.run import RunData
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import ItemScores

PASS, FAIL, UNSCORED, ERROR = 1, 2, 4, 8
CHUNK_ITEMS = 50
"""Items per embedded chunk: the page parses only the chunks it shows."""


class _Table:
    """Distinct strings, numbered in order of first use."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._numbers: dict[str, int] = {}

    def ref(self, text: str | None) -> int | None:
        if text is None:
            return None
        number = self._numbers.get(text)
        if number is None:
            number = self._numbers[text] = len(self.values)
            self.values.append(text)
        return number


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


class ItemDetails:
    """The drill-down data of a run: its index, item records on demand, and text search."""

    def __init__(self, run: RunData) -> None:
        self._run = run
        self._model = {model: i for i, model in enumerate(run.models)}
        self._judge = {judge: i for i, judge in enumerate(run.judges)}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._run.items)

    # -- index --------------------------------------------------------------------------------
    def index(self, rows: bool = True) -> dict[str, Any]:
        """Ids, tags and per-model flags and scores of every item, with the lookup tables;
        without `rows` the lookup tables only, and a note saying where the items are."""
        tags: dict[tuple[str, str], int] = {}
        items = self._rows(tags) if rows else []
        index: dict[str, Any] = {
            "models": list(self._model),
            "judges": list(self._judge),
            "tags": [list(pair) for pair in tags],
            "items": items,
            "chunk": CHUNK_ITEMS,
        }
        if not rows:
            index["omitted"] = (
                f"This run has {len(self):,} items, too many to embed in one file: browse them "
                f"with `checkbench view {self._run.store.run_dir}`."
            )
        return index

    def _rows(self, tags: dict[tuple[str, str], int]) -> list[list[Any]]:
        """One index row per item; `tags` numbers the (facet, value) pairs met."""
        units = {
            position: [u for _, u in group]
            for position, group in groupby(self._units(), key=lambda u: u[0])
        }
        return [
            [
                item.id,
                [
                    tags.setdefault((facet, value), len(tags))
                    for facet, values in item.tags.items()
                    for value in values
                ],
                units.get(position, []),
            ]
            for position, item in enumerate(self._run.items)
        ]

    def _units(self) -> Iterator[tuple[int, list[Any]]]:
        """(position, [model, flags, score per judge...]) of every response, by item then
        model; a score is None where unscored."""
        judges = list(self._judge)
        dense = {
            (judge, model): _dense(scores, len(self))
            for judge in judges
            for model, scores in self._run.columns[judge].items()
        }
        for position, model, failed, passed, flunked in self._run.store.unit_marks(judges):
            scores = [_score(dense.get((judge, model)), position) for judge in judges]
            flags = ERROR if failed else 0
            flags |= (PASS if passed else 0) | (FAIL if flunked else 0)
            flags |= UNSCORED if any(score is None for score in scores) else 0
            yield position, [self._model[model], flags, *(_rounded(s) for s in scores)]

    # -- records ------------------------------------------------------------------------------
    def records(self, positions: Sequence[int]) -> dict[str, Any]:
        """The records of the items at these positions, with their string and label tables."""
        with self._lock:
            found = self._run.store.item_records(positions, list(self._judge))
        strings, labels = _Table(), _Table()
        records = [self._record(*record, strings, labels) for record in found]
        return {"strings": strings.values, "labels": labels.values, "records": records}

    def chunks(self) -> list[dict[str, Any]]:
        """Every item's record, CHUNK_ITEMS items per chunk, in index order."""
        return [
            self.records(range(start, min(start + CHUNK_ITEMS, len(self))))
            for start in range(0, len(self), CHUNK_ITEMS)
        ]

    def _record(
        self,
        item: Item,
        responses: list[Response],
        verdicts: list[Verdict],
        strings: _Table,
        labels: _Table,
    ) -> list[Any]:
        check_number = {check.id: n for n, check in enumerate(item.checklist)}
        by_answer: dict[tuple[str, int], list[Verdict]] = {}
        for verdict in verdicts:
            by_answer.setdefault((verdict.model, verdict.sample), []).append(verdict)
        return [
            labels.ref(item.rule),
            [[labels.ref(m.role), strings.ref(m.content)] for m in item.messages],
            [
                [labels.ref(c.id), strings.ref(c.text), c.weight, labels.ref(c.source)]
                for c in item.checklist
            ],
            strings.ref(item.reference),
            [
                self._response(
                    response,
                    by_answer.get((response.model, response.sample), []),
                    check_number,
                    strings,
                )
                for response in responses
            ],
        ]

    def _response(
        self,
        response: Response,
        verdicts: list[Verdict],
        check_number: dict[str, int],
        strings: _Table,
    ) -> list[Any]:
        verdicts = sorted(
            verdicts, key=lambda v: (self._judge[v.judge], check_number.get(v.check_id, -1))
        )
        return [
            self._model[response.model],
            strings.ref(response.content),
            strings.ref(response.error),
            response.usage.prompt_tokens,
            response.usage.completion_tokens,
            _rounded(response.latency_s, 2),
            [
                [
                    self._judge[v.judge],
                    check_number.get(v.check_id),
                    None if v.passed is None else int(v.passed),
                    strings.ref(v.reason or None),
                    _rounded(v.p_yes),
                    strings.ref(v.raw) if v.passed is None else None,
                ]
                for v in verdicts
            ],
            response.sample,
        ]

    # -- search -------------------------------------------------------------------------------
    def search(self, query: str, *, after: int = -1, limit: int = -1) -> list[int]:
        """Positions after `after` (at most `limit`; -1: all) of the items whose id or texts
        contain the query, ignoring case."""
        with self._lock:
            return self._run.store.search_items(query, list(self._judge), after=after, limit=limit)


def _dense(scores: ItemScores, size: int) -> np.ndarray:
    """A model's item scores over every position, NaN where unscored or unanswered."""
    column = np.full(size, np.nan)
    column[scores.positions] = scores.values
    return column


def _score(column: np.ndarray | None, position: int) -> float | None:
    if column is None:
        return None
    value = float(column[position])
    return None if math.isnan(value) else value
