"""Stage outputs the report reads from the run store's records: validated against the model
that wrote them; a record that does not validate becomes a line on the page, never a crash and
never silently dropped."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from checkbench.store import RunStore

M = TypeVar("M", bound=BaseModel)


def _problem(kind: str, key: str, exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "record"
    return f"{kind} record '{key}' is not readable ({where}: {first['msg']})"


def stored_records(
    store: RunStore, kind: str, model: type[M], problems: list[str], only: str | None = None
) -> dict[str, M]:
    """The records of a kind that validate as `model`, by key (only key `only` when given);
    each one that does not adds a line to `problems`."""
    valid = {}
    for key, value in store.records(kind).items():
        if only is not None and key != only:
            continue
        try:
            valid[key] = model.model_validate(value)
        except ValidationError as exc:
            problems.append(_problem(kind, key, exc))
    return valid
