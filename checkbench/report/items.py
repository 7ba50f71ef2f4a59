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

Search matches an item when the query occurs, ignoring case, in its id or in any of its texts
(the `strings` its record refers to), the same definition in the browser and the server.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from checkbench.report.run import RunData
from checkbench.schema import Item, Response, Verdict

PASS, FAIL, UNSCORED, ERROR = 1, 2, 4, 8
CHUNK_ITEMS = 250
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


def _flags(response: Response, verdicts: list[Verdict], unscored: bool) -> int:
    flags = ERROR if response.error is not None else 0
    flags |= PASS if any(v.passed is True for v in verdicts) else 0
    flags |= FAIL if any(v.passed is False for v in verdicts) else 0
    return flags | (UNSCORED if unscored else 0)


class ItemDetails:
    """The drill-down data of a run: its index, item records on demand, and text search."""

    def __init__(self, run: RunData) -> None:
        self._run = run
        self.items: list[Item] = run.items
        self._model = {model: i for i, model in enumerate(run.models)}
        self._judge = {judge: i for i, judge in enumerate(run.judges)}
        self._responses: dict[str, list[Response]] = defaultdict(list)
        for response in run.responses:
            self._responses[response.item_id].append(response)
        self._verdicts: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
        for judge in run.judges:
            for verdict in run.verdicts[judge]:
                self._verdicts[verdict.item_id, verdict.model].append(verdict)
        self._texts: list[str] | None = None

    def __len__(self) -> int:
        return len(self.items)

    # -- index --------------------------------------------------------------------------------
    def index(self) -> dict[str, Any]:
        """Ids, tags and per-model flags and scores of every item, with the lookup tables."""
        tags: dict[tuple[str, str], int] = {}
        rows = []
        for item in self.items:
            item_tags = [
                tags.setdefault((facet, value), len(tags))
                for facet, values in item.tags.items()
                for value in values
            ]
            rows.append([item.id, item_tags, self._units(item)])
        return {
            "models": list(self._model),
            "judges": list(self._judge),
            "tags": [list(pair) for pair in tags],
            "items": rows,
            "chunk": CHUNK_ITEMS,
        }

    def _units(self, item: Item) -> list[list[Any]]:
        units = []
        for response in self._responses[item.id]:
            scores = [self._run.scores[judge][response.model].get(item.id) for judge in self._judge]
            verdicts = self._verdicts[item.id, response.model]
            flags = _flags(response, verdicts, any(score is None for score in scores))
            units.append(
                [self._model[response.model], flags, *(_rounded(score) for score in scores)]
            )
        return units

    # -- records ------------------------------------------------------------------------------
    def records(self, positions: Sequence[int]) -> dict[str, Any]:
        """The records of the items at these positions, with their string and label tables."""
        strings, labels = _Table(), _Table()
        records = [self._record(self.items[p], strings, labels) for p in positions]
        return {"strings": strings.values, "labels": labels.values, "records": records}

    def chunks(self) -> list[dict[str, Any]]:
        """Every item's record, CHUNK_ITEMS items per chunk, in index order."""
        return [
            self.records(range(start, min(start + CHUNK_ITEMS, len(self.items))))
            for start in range(0, len(self.items), CHUNK_ITEMS)
        ]

    def _record(self, item: Item, strings: _Table, labels: _Table) -> list[Any]:
        check_number = {check.id: n for n, check in enumerate(item.checklist)}
        return [
            labels.ref(item.rule),
            [[labels.ref(m.role), strings.ref(m.content)] for m in item.messages],
            [
                [labels.ref(c.id), strings.ref(c.text), c.weight, labels.ref(c.source)]
                for c in item.checklist
            ],
            strings.ref(item.reference),
            [
                self._response(response, check_number, strings)
                for response in self._responses[item.id]
            ],
        ]

    def _response(
        self, response: Response, check_number: dict[str, int], strings: _Table
    ) -> list[Any]:
        verdicts = sorted(
            self._verdicts[response.item_id, response.model],
            key=lambda v: (self._judge[v.judge], check_number.get(v.check_id, -1)),
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
        ]

    # -- search -------------------------------------------------------------------------------
    def search(self, query: str) -> list[int]:
        """Positions of the items whose id or texts contain the query, ignoring case."""
        needle = query.lower()
        if self._texts is None:
            self._texts = [
                "\0".join([item.id, *self.records([p])["strings"]]).lower()
                for p, item in enumerate(self.items)
            ]
        return [p for p, text in enumerate(self._texts) if needle in text]
