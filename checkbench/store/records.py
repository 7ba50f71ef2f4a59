"""Record kinds: the typed outputs of a stage that the run store keeps by key (a build
decision, a calibration, a judge's agreement report). Each kind is declared once, next to the
model of its value, in the package that owns it; the store writes a value as the kind's JSON
and validates it as the kind's model when read back."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

T = TypeVar("T")

_KINDS: dict[str, RecordKind[Any]] = {}


class RecordKind(Generic[T]):
    """A name under which records are stored, with the pydantic type of their values (a model,
    or a TypedDict for records kept as plain JSON objects). Two kinds never share a name."""

    def __init__(self, name: str, value: type[T] | Any) -> None:
        if name in _KINDS:
            raise ValueError(f"record kind '{name}' is declared twice")
        self.name = name
        self.value = value
        self._adapter: TypeAdapter[T] = TypeAdapter(value)
        _KINDS[name] = self

    def __repr__(self) -> str:
        return f"RecordKind({self.name!r})"

    def dump(self, value: T) -> str:
        """The value as the store keeps it: compact JSON, non-ASCII characters as they are."""
        return self._adapter.dump_json(value).decode()

    def load(self, body: str) -> T:
        """A stored value, validated (a ValidationError, a ValueError, when it does not)."""
        return self._adapter.validate_json(body)

    def problem(self, key: str, exc: ValidationError) -> str:
        """One line naming a stored record that does not validate, and why."""
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            return f"{self.name} record '{key}' is not readable (not JSON)"
        where = ".".join(str(part) for part in first["loc"]) or "record"
        return f"{self.name} record '{key}' is not readable ({where}: {first['msg']})"


def record_kind(name: str) -> RecordKind[Any] | None:
    """The kind declared under `name`, if the module declaring it was imported."""
    return _KINDS.get(name)
