"""Locate a damaged row of a run store: a stored body that is not JSON, or a column of the
wrong type. Readers decode rows as they go and would fail with a traceback; when one fails,
`damaged_row` walks the store and names the first such row in one line (a record is
checked against its kind, when the module declaring that kind was loaded)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from checkbench.errors import InputError
from checkbench.schema import Item, Response, Verdict
from checkbench.store.queries import RESPONSE_BODY, VERDICT_BODY
from checkbench.store.records import record_kind

DAMAGE = (ValueError, TypeError, KeyError, AttributeError, sqlite3.OperationalError)
"""What reading a damaged row raises (a pydantic ValidationError is a ValueError; SQLite's
json functions raise OperationalError on malformed JSON)."""

_PAIRS = TypeAdapter(list[tuple[str, float | None]])
_TAGS = TypeAdapter(dict[str, list[str]])
_OBJECT = TypeAdapter(dict[str, Any])


def _passed(value: object) -> None:
    if value not in (0, 1, None) or isinstance(value, float | str):
        raise ValueError(f"expected 1, 0 or NULL, found {value!r}")


def _not_null(value: object) -> None:
    if value is None:
        raise ValueError("NULL, a verdict must name its check")


def _result(value: str | None) -> None:
    if value is not None:
        _OBJECT.validate_json(value)


_SAMPLE = "'sample ' || sample"
"""A response's or verdict's sample in its row key, named: `q3/model-a/sample 0`."""
_VERDICT = f"item_id, model, {_SAMPLE}, judge, check_id"
_CHECKS: tuple[tuple[str, str, str, Callable[[Any], object]], ...] = (
    ("items", "id", "body", Item.model_validate_json),
    ("items", "id", "checks", _PAIRS.validate_json),
    ("items", "id", "tags", _TAGS.validate_json),
    ("responses", f"item_id, model, {_SAMPLE}", "body", Response.model_validate_json),
    ("verdicts", _VERDICT, "check_id", _not_null),
    ("verdicts", _VERDICT, "passed", _passed),
    ("verdicts", _VERDICT, "body", Verdict.model_validate_json),
    ("calls", "id", "result", _result),
)
"""(table, row key columns, field, decoder): what the readers decode, in the order they do."""


def _records(db: sqlite3.Connection) -> Iterator[tuple[list[Any], Any, Callable[[Any], object]]]:
    """(row key, body, decoder) of every record of a kind a loaded module declares."""
    for kind, key, body in db.execute("SELECT kind, key, body FROM records ORDER BY rowid"):
        if (declared := record_kind(kind)) is not None:
            yield [kind, key], body, declared.load


def _rows(
    db: sqlite3.Connection,
) -> Iterator[tuple[str, str, list[Any], Any, Callable[[Any], object]]]:
    """(table, field, row key, value, decoder) of every decoded value, in the readers' order."""
    for table, key, field, decode in _CHECKS:
        column = _WHOLE.get((table, field), field)
        query = f"SELECT {key}, {column} FROM {table} {table[0]}"  # noqa: S608
        for *keys, value in db.execute(query):
            yield table, field, keys, value, decode
    for keys, value, decode in _records(db):
        yield "records", "body", keys, value, decode


_WHOLE = {("responses", "body"): RESPONSE_BODY, ("verdicts", "body"): VERDICT_BODY}
"""The bodies read whole, as the readers read them (the table's first letter names its rows)."""


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        if error["type"] == "json_invalid":
            return "not JSON"
        where = ".".join(str(part) for part in error["loc"])
        return f"{where + ': ' if where else ''}{error['msg']}"
    return str(exc)


def damaged_row(db: sqlite3.Connection, path: Path) -> InputError | None:
    """The first row that does not decode, as an error naming the store file, the table, the
    row's key and the field; None when every row decodes."""
    for table, field, keys, value, decode in _rows(db):
        try:
            decode(value)
        except (ValidationError, ValueError, TypeError) as exc:
            return InputError(
                f"damaged row {'/'.join(map(str, keys))} of table {table} "
                f"({_why(exc)}): the run store was altered or corrupted; "
                "rerun into a new run directory",
                path=path,
                field=field,
            )
    return None
