"""Stream conversation logs into `Conversation` records, one record at a time.

Formats, detected per record (`fmt="auto"`) or forced:

- ``openai``: ``{"id"?, "messages": [{"role", "content"}]}``; content may be a list of text parts.
- ``sharegpt``: ``{"id"?, "conversations": [{"from": "human" | "gpt" | "system", "value"}]}``.
- ``lmsys`` (LMSYS-Chat-1M): ``{"conversation_id", "model", "conversation": [...], "language"}``.
- ``wildchat``: ``{"conversation_hash", "model", "conversation": [...], "language"}``.

Files are JSON Lines, gzipped JSON Lines or Parquet, recognised by their first bytes. Nothing is
read whole: lines and Parquet record batches are parsed as they stream by, so a file larger than
memory is fine. A malformed record is reported as a located `InputError` (file, line or Parquet row,
field) and skipped and counted in `IngestStats`, or raised at once with ``strict=True``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from checkbench.choices import LogFormat as Format
from checkbench.errors import CheckbenchError, InputError
from checkbench.inputs import input_file, open_input
from checkbench.jsonl import MAX_DEPTH, nested_too_deep, too_deep
from checkbench.schema import Message

CONVERSATION_ROLES = frozenset({"user", "assistant", "system"})
PARQUET_BATCH_ROWS = 1024


class Source(BaseModel):
    """Where a record came from: the file and its 1-based line (row number for Parquet)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    line: int


class Conversation(BaseModel):
    """One logged chat, normalised to OpenAI roles; `meta` keeps the record's other scalars."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    messages: list[Message] = Field(min_length=1)
    language: str | None = None
    model: str | None = None
    source: Source
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("messages")
    @classmethod
    def _chat_roles(cls, messages: list[Message]) -> list[Message]:
        unknown = {m.role for m in messages} - CONVERSATION_ROLES
        if unknown:
            raise ValueError(f"roles must be user, assistant or system, not {sorted(unknown)}")
        if not any(_is_user_text(m) for m in messages):
            raise ValueError("a conversation needs a non-blank user message")
        return messages

    @property
    def first_user_message(self) -> str:
        """The first non-blank user message: what the domain filter looks at."""
        return next(m.content for m in self.messages if _is_user_text(m))


def _is_user_text(message: Message) -> bool:
    return message.role == "user" and bool(message.content.strip())


class RecordError(Exception):
    """Why one record cannot become a Conversation: a countable reason, a field, a detail."""

    def __init__(self, reason: str, field: str | None = None, detail: str = "") -> None:
        self.reason = reason
        self.field = field
        self.detail = detail
        super().__init__(f"{reason} ({detail})" if detail else reason)

    def __reduce__(self) -> tuple[type[RecordError], tuple[str, str | None, str]]:
        """Pickled whole (records may be parsed in other processes)."""
        return RecordError, (self.reason, self.field, self.detail)

    def located(self, path: Path, line: int) -> InputError:
        """The same problem as a user-facing error naming file, line and field."""
        return InputError(str(self), path=path, line=line, field=self.field)


@dataclass
class IngestStats:
    """What one ingestion saw: records read, kept and skipped, skip reasons, the first errors."""

    read: int = 0
    kept: int = 0
    skipped: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    errors: list[InputError] = field(default_factory=list)
    max_errors: int = 20

    def skip(self, reason: str, error: InputError) -> None:
        """Count one skipped record; keep its error if fewer than `max_errors` are kept."""
        self.skipped += 1
        self.reasons[reason] += 1
        if len(self.errors) < self.max_errors:
            self.errors.append(error)


@dataclass(frozen=True)
class _Spec:
    """How one log format spells the turn list, role, content and id, and its role names."""

    name: str
    turns: str
    role: str
    content: str
    id_key: str
    roles: Mapping[str, str]


_SAME_ROLES = {role: role for role in CONVERSATION_ROLES}
_SHAREGPT_ROLES = {
    **_SAME_ROLES,
    "human": "user",
    "gpt": "assistant",
    "chatgpt": "assistant",
    "bard": "assistant",
    "bing": "assistant",
}
_SPECS = {
    "openai": _Spec("openai", "messages", "role", "content", "id", _SAME_ROLES),
    "sharegpt": _Spec("sharegpt", "conversations", "from", "value", "id", _SHAREGPT_ROLES),
    "lmsys": _Spec("lmsys", "conversation", "role", "content", "conversation_id", _SAME_ROLES),
    "wildchat": _Spec(
        "wildchat", "conversation", "role", "content", "conversation_hash", _SAME_ROLES
    ),
}
_TOP_LEVEL = frozenset({"language", "model"})


RawRow = tuple[int, bytes | dict[str, Any]]
"""A record as read: its line (or Parquet row) number and its undecoded line (or row)."""
Parsed = tuple[int, Conversation | RecordError]
ParseRows = Callable[[str, Format, Iterator[RawRow]], Iterator[Parsed]]
"""Turns the raw records of one file (its name, the format) into conversations or the
reason each is not one, in order."""


def iter_conversations(
    path: str | Path,
    fmt: Format = "auto",
    *,
    strict: bool = False,
    on_error: Callable[[InputError], None] | None = None,
    stats: IngestStats | None = None,
    parse: ParseRows | None = None,
) -> Iterator[Conversation]:
    """Stream the conversations of a log file, skipping (and counting) or raising on bad records.

    Pass an `IngestStats` to read the counts and skip reasons afterwards; `on_error` sees each
    skipped record's located error as it happens. File-level problems always raise `InputError`.
    `parse` turns the raw records into conversations (default `parse_rows`, here; the Ray
    executor parses them on its workers), in order.
    """
    if fmt not in get_args(Format):
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(get_args(Format))}")
    path = input_file(path)
    stats = stats if stats is not None else IngestStats()
    return _stream(path, fmt, strict, on_error, stats, parse or parse_rows)


def parse_rows(name: str, fmt: Format, rows: Iterable[RawRow]) -> Iterator[Parsed]:
    """Each raw record of the file `name` parsed, or why it cannot be."""
    for line, raw in rows:
        try:
            yield line, parse_record(_decode(raw), fmt, Source(path=name, line=line))
        except RecordError as exc:
            yield line, exc


def _stream(
    path: Path,
    fmt: Format,
    strict: bool,
    on_error: Callable[[InputError], None] | None,
    stats: IngestStats,
    parse: ParseRows,
) -> Iterator[Conversation]:
    for line, parsed in parse(str(path), fmt, _rows(path)):
        stats.read += 1
        if isinstance(parsed, RecordError):
            error = parsed.located(path, line)
            if strict:
                raise error from None
            stats.skip(parsed.reason, error)
            if on_error is not None:
                on_error(error)
            continue
        stats.kept += 1
        yield parsed


def parse_record(record: Any, fmt: Format, source: Source) -> Conversation:
    """Turn one decoded record into a Conversation, or raise `RecordError` saying why not."""
    if not isinstance(record, dict):
        raise RecordError("not a JSON object")
    spec = _SPECS[detect_format(record) if fmt == "auto" else fmt]
    messages = _messages(record, spec)
    return Conversation(
        id=_record_id(record, spec) or content_id(messages),
        messages=messages,
        language=_optional_str(record, "language"),
        model=_optional_str(record, "model"),
        source=source,
        meta=_meta(record, spec),
    )


def detect_format(record: Mapping[str, Any]) -> str:
    """The log format a record is written in, judged by its keys."""
    if "messages" in record:
        return "openai"
    if "conversations" in record:
        return "sharegpt"
    if "conversation" in record:
        return "wildchat" if "conversation_hash" in record else "lmsys"
    raise RecordError(
        "unrecognised record", detail="no 'messages', 'conversations' or 'conversation' list"
    )


def content_id(messages: list[Message]) -> str:
    """A stable id from the turns alone: the same chat gets the same id in any format."""
    turns = json.dumps([[m.role, m.content] for m in messages], ensure_ascii=False)
    return "h:" + hashlib.blake2b(turns.encode(), digest_size=12).hexdigest()


def _messages(record: Mapping[str, Any], spec: _Spec) -> list[Message]:
    if spec.turns not in record:
        raise RecordError("missing field", spec.turns)
    turns = record[spec.turns]
    if not isinstance(turns, list):
        raise RecordError("wrong type", spec.turns, f"expected a list, got {_kind(turns)}")
    if not turns:
        raise RecordError("empty conversation", spec.turns)
    messages = [_message(turn, spec, f"{spec.turns}.{i}") for i, turn in enumerate(turns)]
    if not any(_is_user_text(m) for m in messages):
        raise RecordError("no user message", spec.turns, "no non-blank user turn")
    return messages


def _message(turn: Any, spec: _Spec, where: str) -> Message:
    if not isinstance(turn, dict):
        raise RecordError("wrong type", where, f"expected an object, got {_kind(turn)}")
    if turn.get(spec.role) is None:
        raise RecordError("missing field", f"{where}.{spec.role}")
    role = spec.roles.get(turn[spec.role]) if isinstance(turn[spec.role], str) else None
    if role is None:
        raise RecordError("unknown role", f"{where}.{spec.role}", repr(turn[spec.role])[:40])
    if spec.content not in turn:
        raise RecordError("missing field", f"{where}.{spec.content}")
    return Message(role=role, content=_content(turn[spec.content], f"{where}.{spec.content}"))


def _content(value: Any, where: str) -> str:
    """A turn's text; OpenAI content-part lists keep their text parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        return "\n".join(
            part["text"]
            for part in value
            if part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    raise RecordError("wrong type", where, f"expected a string, got {_kind(value)}")


def _record_id(record: Mapping[str, Any], spec: _Spec) -> str | None:
    value = record.get(spec.id_key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise RecordError("wrong type", spec.id_key, f"expected a string, got {_kind(value)}")
    return str(value)


def _optional_str(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    raise RecordError("wrong type", key, f"expected a string, got {_kind(value)}")


def _meta(record: Mapping[str, Any], spec: _Spec) -> dict[str, Any]:
    """The format name and the record's other scalar fields (nested values are dropped)."""
    meta: dict[str, Any] = {"format": spec.name}
    for key, value in record.items():
        if key in (spec.turns, spec.id_key) or key in _TOP_LEVEL:
            continue
        if isinstance(value, datetime | date):
            meta[key] = value.isoformat()
        elif isinstance(value, str | int | float | bool):
            meta[key] = value
    return meta


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _decode(raw: bytes | dict[str, Any]) -> Any:
    if not isinstance(raw, bytes):
        return raw
    try:
        data = json.loads(raw)
    except RecursionError:
        raise RecordError("malformed JSON", detail=too_deep()) from None
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
        raise RecordError("malformed JSON", detail=getattr(exc, "msg", str(exc))) from None
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and nested_too_deep(data):
        raise RecordError("malformed JSON", detail=too_deep())
    return data


def _rows(path: Path) -> Iterator[tuple[int, bytes | dict[str, Any]]]:
    """(line or row number, raw record) for each record; JSONL lines stay undecoded bytes."""
    with open_input(path) as handle:
        magic = handle.read(4)
    if magic == b"PAR1":
        rows = _parquet_rows(path)
    else:
        rows = _jsonl_rows(path, gzipped=magic[:2] == b"\x1f\x8b")
    empty = True
    for row in rows:
        empty = False
        yield row
    if empty:
        raise InputError("file has no records", path=path)


def _jsonl_rows(path: Path, *, gzipped: bool) -> Iterator[tuple[int, bytes]]:
    number = 0
    try:
        with gzip.open(path, "rb") if gzipped else path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                if number == 1 and line.lstrip().startswith(b"["):
                    raise InputError(
                        "a JSON array, not JSON Lines: convert it, e.g. jq -c '.[]' in > out.jsonl",
                        path=path,
                    )
                yield number, line
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"unreadable data ({exc})", path=path, line=number + 1) from None


def _parquet_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CheckbenchError(
            "reading Parquet needs pyarrow: pip install 'checkbench[build]'"
        ) from None
    row = 0
    try:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=PARQUET_BATCH_ROWS):
            for record in batch.to_pylist():
                row += 1
                yield row, record
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"unreadable Parquet data ({exc})", path=path, line=row + 1) from None
