"""The rows the run store writes and hands back: calls as the audit log keeps them, usage
per model and role, item heads for scoring, and verdicts as rows of their table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from checkbench.redact import redact
from checkbench.schema import Verdict

INSERT_CALL = (
    "INSERT OR IGNORE INTO calls(key, model, role, status, request, result, prompt_tokens,"
    " completion_tokens, latency_s, error, created_at, attempts, timeouts)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_VERDICTS = (
    "INSERT OR REPLACE INTO verdicts(item_id, model, sample, judge, check_id, passed, body) VALUES "
)
ROWS_PER_STATEMENT = 100
"""Rows one INSERT takes at most: 100 rows of 7 values stay under the 999 variables that older
SQLite builds allow in one statement."""


@dataclass(frozen=True)
class UsageRow:
    """Calls and token accounting for one (model, role) pair: `calls` succeeded, `errors`
    failed after every attempt; `attempts` counts every HTTP try (retries = attempts - calls -
    errors), `timeouts` the tries that timed out."""

    model: str
    role: str
    calls: int
    errors: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int = 0
    timeouts: int = 0
    batched_prompt_tokens: int = 0
    batched_completion_tokens: int = 0
    """The tokens of calls answered through a Batch API (billed at the batch price)."""

    @property
    def retries(self) -> int:
        return max(self.attempts - self.calls - self.errors, 0)


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


@dataclass(frozen=True)
class CallRecord:
    """One logical model call as the audit log keeps it, as data: the request as compact JSON
    text naming the texts many requests share by digest (`shared`, digest -> text, kept once),
    and the answer's JSON text when it succeeded, with its token counts."""

    key: str
    model: str
    role: str
    request: str
    shared: Mapping[str, str]
    result: str | None
    error: str | None
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 1
    timeouts: int = 0
    answer: str | None = None
    """The answer's text (in `result` too): a response with this content then names the call
    instead of keeping the text again."""


VERDICT_COLUMNS = frozenset({"item_id", "model", "sample", "judge", "check_id", "passed"})
"""A verdict's fields its row holds in columns, so not again in its body."""
RESPONSE_COLUMNS = frozenset({"item_id", "model", "sample"})
"""A response's fields its row holds in columns, so not again in its body."""


def verdict_rows(verdicts: Iterable[Verdict]) -> list[tuple[Any, ...]]:
    """Verdicts as rows of the verdicts table: the fields the columns hold, and a redacted body
    of the others that differ from their defaults (`queries.VERDICT_BODY` reads it whole)."""
    return [
        (
            v.item_id,
            v.model,
            v.sample,
            v.judge,
            v.check_id,
            v.passed,
            redact(v.model_dump_json(exclude=VERDICT_COLUMNS, exclude_defaults=True)),
        )
        for v in verdicts
    ]


def insert_rows(head: str, rows: Sequence[tuple[Any, ...]]) -> str:
    """`head` (an "INSERT ... VALUES ") with one group of placeholders per row."""
    group = "(" + ", ".join("?" * len(rows[0])) + ")"
    return head + ", ".join([group] * len(rows))
