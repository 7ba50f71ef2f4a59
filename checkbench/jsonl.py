"""JSON Lines reading with located errors, and atomic writing."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from checkbench.errors import InputError, disk_full, full_disk_error
from checkbench.inputs import first_non_blank, input_file, iter_input_lines, read_input_text

M = TypeVar("M", bound=BaseModel)
MAX_DEPTH = 128
"""How deep arrays and objects may nest in any input file: deeper is refused, not recursed into."""


def nested_too_deep(data: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and dicts nest more than `limit` levels (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def check_depth(
    data: Any, text: str, path: str | Path, line: int | None = None, limit: int = MAX_DEPTH
) -> Any:
    """`data` parsed from `text`; nesting deeper than `limit` is a located InputError."""
    many = isinstance(data, dict | list) and text.count("[") + text.count("{") > limit
    if many and nested_too_deep(data, limit):
        raise InputError(too_deep(limit), path=path, line=line)
    return data


def too_deep(limit: int = MAX_DEPTH) -> str:
    return f"arrays and objects nested more than {limit} levels deep"


def loads(
    text: str | bytes,
    path: str | Path,
    line: int | None = None,
    *,
    limit: int = MAX_DEPTH,
    **kw: Any,
) -> Any:
    """json.loads bounded in depth: nesting past `limit` is a located InputError, never a
    RecursionError. A JSONDecodeError passes through for the caller to locate."""
    try:
        data = json.loads(text, **kw)
    except RecursionError:
        raise InputError(too_deep(limit), path=path, line=line) from None
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    check_depth(data, text, path, line, limit)
    if _SURROGATE_ESCAPE.search(text) and (field := lone_surrogate(data)) is not None:
        if line is None and isinstance(data, list):  # a JSON list: its record's number
            first, _, field = field.partition(".")
            line = int(first) + 1
        raise InputError(LONE_SURROGATE, path=path, line=line, field=field or None)
    return data


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
LONE_SURROGATE = "holds a lone surrogate (a \\ud800-\\udfff escape), which is not text"


def lone_surrogate(data: Any) -> str | None:
    """The dotted path of the first string (or key) holding a lone surrogate, else None."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return where
            continue
        if not isinstance(value, dict | list):
            continue
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in reversed(list(pairs)):
            at = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and lone_surrogate(key) is not None:
                return at
            stack.append((child, at))
    return None


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
        record = loads(line, path, number)
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
        return loads(text, path)
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
            if line.count("[") + line.count("{") > MAX_DEPTH:
                _record(line, path, number)
        except (ValidationError, RecursionError):
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
def atomic_write(path: str | Path, encoding: str = "utf-8") -> Iterator[TextIO]:
    """A text handle (UTF-8 unless told) whose content replaces `path` only once the block
    ends cleanly.

    Readers see the old file or the complete new one, never half; on error nothing is written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding=encoding) as handle:
            yield handle
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if disk_full(exc):
            raise full_disk_error(exc, path) from None
        raise


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """Replace the file's content with `text` atomically."""
    with atomic_write(path, encoding) as handle:
        handle.write(text)


def write_jsonl(path: str | Path, records: Iterable[BaseModel | dict[str, Any]]) -> int:
    """Write records atomically: readers see the old file or the complete new one."""
    count = 0
    with atomic_write(path) as handle:
        for record in records:
            handle.write(dumps(record) + "\n")
            count += 1
    return count
