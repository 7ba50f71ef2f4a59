"""JSON Lines reading with located errors, and atomic writing."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from checkbench.errors import InputError
from checkbench.inputs import first_non_blank, input_file, iter_input_lines, read_input_text

M = TypeVar("M", bound=BaseModel)


def field_path(error: ValidationError) -> tuple[str, str]:
    """The dotted location and message of a validation error's first problem."""
    first = error.errors()[0]
    loc = ".".join(str(part) for part in first["loc"]) or "record"
    return loc, first["msg"].removeprefix("Value error, ")


def _filled_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line; a file without one raises InputError."""
    seen = False
    for number, line in iter_input_lines(path):
        if line.strip():
            seen = True
            yield number, line
    if not seen:
        raise InputError("file is empty", path=path)


def _record(line: str, path: Path, number: int) -> dict[str, Any]:
    """The object on one line; malformed JSON or another value raises InputError."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", path=path, line=number) from None
    if not isinstance(record, dict):
        raise InputError("each line must be a JSON object", path=path, line=number)
    return record


def iter_json_lines(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; malformed lines raise InputError."""
    path = Path(path)
    return ((number, _record(line, path, number)) for number, line in _filled_lines(path))


def parse_json_text(text: str, path: Path) -> Any:
    """The data of a whole JSON file's text; malformed JSON is a located InputError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", path=path, line=exc.lineno) from None


def _iter_json_list(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    data = parse_json_text(read_input_text(path), path)
    if not isinstance(data, list) or not data:
        raise InputError("expected a non-empty JSON list of records", path=path)
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            raise InputError("each record must be a JSON object", path=path, line=number)
        yield number, record


def iter_json_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(location, object) from a JSON list file or a JSON Lines file, told apart by content.

    The location is the line number for JSON Lines and the record number for a JSON list.
    """
    path = input_file(path)
    if first_non_blank(path) == b"[":
        return _iter_json_list(path)
    return iter_json_lines(path)


def validate(model: type[M], record: dict[str, Any], *, path: str | Path, line: int | None) -> M:
    """Validate one record, turning a pydantic error into a located InputError."""
    try:
        return model.model_validate(record)
    except ValidationError as exc:
        loc, msg = field_path(exc)
        raise InputError(msg, path=path, line=line, field=loc) from None


def iter_models(path: str | Path, model: type[M]) -> Iterator[tuple[int, M]]:
    """(location, model) for each record of a JSON Lines file or JSON list (see
    `iter_json_records`), validated as they are read; the first bad one raises InputError.
    A line is validated from its text, which is a third cheaper than from its object; a line
    that fails so is read again as an object, to be named as every record reader names it."""
    path = input_file(path)
    if first_non_blank(path) == b"[":
        for number, record in _iter_json_list(path):
            yield number, validate(model, record, path=path, line=number)
        return
    for number, line in _filled_lines(path):
        try:
            value = model.model_validate_json(line)
        except ValidationError:
            value = validate(model, _record(line, path, number), path=path, line=number)
        yield number, value


def read_models(path: str | Path, model: type[M]) -> list[M]:
    """Load and validate every record of a JSONL file (or JSON list); the first bad one stops."""
    return [value for _, value in iter_models(path, model)]


def dumps(obj: BaseModel | dict[str, Any]) -> str:
    """One compact JSON line for a model or a plain dict."""
    if isinstance(obj, BaseModel):
        return obj.model_dump_json(exclude_none=False)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _umasked(mode: int) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


_FILE_MODE = _umasked(0o666)
"""What open() would give a new file (mkstemp's temporary files are 0600)."""


@contextmanager
def atomic_write(path: str | Path) -> Iterator[TextIO]:
    """A UTF-8 text handle whose content replaces `path` only once the block ends cleanly.

    Readers see the old file or the complete new one, never half; on error nothing is written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Replace the file's content with `text` atomically."""
    with atomic_write(path) as handle:
        handle.write(text)


def write_jsonl(path: str | Path, records: Iterable[BaseModel | dict[str, Any]]) -> int:
    """Write records atomically: readers see the old file or the complete new one."""
    count = 0
    with atomic_write(path) as handle:
        for record in records:
            handle.write(dumps(record) + "\n")
            count += 1
    return count
