"""FB-Bench: the sample file as Items (the published judgment files: `judgments`).

A sample becomes an Item whose messages are [user `user_query`, assistant
`origin_first_response`, user `feedback`]. Error Correction (EC) checklists are weighted
(rule "weighted"); Response Maintenance (RM) checklists are alternatives (rule "any").

Tags: scenario ["EC" | "RM"], bench_type, task, subtask, feedback_type, deficiency (the
`error_type` list; empty for RM).

A sample's id comes from its user_query and feedback without whitespace, so the versions of
one sample that differ only in whitespace (the published files have such) share it.

Errors name the file, the record (the 1-based record number for a JSON list, the line number
for JSONL) and the field.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from checkbench.errors import InputError
from checkbench.jsonl import field_path, iter_json_records, validate
from checkbench.schema import Check, GenerationHints, Item

SCENARIOS: dict[str, str] = {"Error Correction": "EC", "Response Maintenance": "RM"}
"""bench_type -> scenario tag."""


def squeeze(text: str) -> str:
    """The text without any whitespace: the form in which whitespace differences vanish."""
    return "".join(text.split())


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Where:
    """The location of one record, for error messages."""

    path: Path
    line: int

    def error(self, message: str, field: str | None = None) -> InputError:
        return InputError(message, path=self.path, line=self.line, field=field)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


# ---------------------------------------------------------------- reading records


def located_records(path: Path) -> Iterator[tuple[Where, dict[str, Any]]]:
    """The records of a JSON list or JSONL file, each with its location."""
    for line, record in iter_json_records(path):
        yield Where(path, line), record


# ---------------------------------------------------------------- field parsing


def string_field(record: dict[str, Any], key: str, where: Where, *, blank_ok: bool = False) -> str:
    """A required string field."""
    value = record.get(key)
    if not isinstance(value, str):
        raise where.error("missing" if value is None else "must be a string", key)
    if not blank_ok and not value.strip():
        raise where.error("must not be blank", key)
    return value


def optional_string_field(record: dict[str, Any], key: str, where: Where) -> str | None:
    """An optional string field; absent, null or blank gives None."""
    value = record.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return string_field(record, key, where)


def _string_list(
    record: dict[str, Any], key: str, where: Where, *, optional: bool = False
) -> list[str]:
    """A non-empty list of non-blank strings; [] when optional and absent or null."""
    value = record.get(key)
    if value is None and optional:
        return []
    if not isinstance(value, list) or not value:
        raise where.error("must be a non-empty list of strings", key)
    for index, entry in enumerate(value):
        if not isinstance(entry, str) or not entry.strip():
            raise where.error("must be a non-blank string", f"{key}.{index}")
    return value


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check(fields: dict[str, Any], field: str, where: Where) -> Check:
    """A Check, its data-model problems located at the file's checklist entry."""
    try:
        return Check.model_validate(fields)
    except ValidationError as exc:
        raise where.error(field_path(exc)[1], field) from None


def _weighted_check(entry: Any, index: int, where: Where) -> Check:
    """An EC checklist entry: [text, weight] with a weight above 0 (the format's own rule;
    finite weights summing to 1 is the data model's rule for every weighted checklist)."""
    field = f"checklist.{index}"
    if not (isinstance(entry, list) and len(entry) == 2):
        raise where.error("an Error Correction check must be [text, weight]", field)
    text, weight = entry
    if not isinstance(text, str) or not text.strip():
        raise where.error("check text must be a non-blank string", field)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not weight > 0:
        raise where.error(f"check weight must be a number above 0, got {weight!r}", field)
    return _check({"id": f"c{index + 1}", "text": text, "weight": weight}, field, where)


def _alternative_check(entry: Any, index: int, where: Where) -> Check:
    """An RM checklist entry: a text, one of several alternatives."""
    if not isinstance(entry, str) or not entry.strip():
        raise where.error(
            "a Response Maintenance check must be a non-blank string", f"checklist.{index}"
        )
    return Check(id=f"c{index + 1}", text=entry)


def _checklist(raw: Any, scenario: str, where: Where) -> list[Check]:
    """The checklist of one sample; texts must be distinct (judgements are keyed by text)."""
    if not isinstance(raw, list) or not raw:
        raise where.error("must be a non-empty list", "checklist")
    parse = _weighted_check if scenario == "EC" else _alternative_check
    checks = [parse(entry, index, where) for index, entry in enumerate(raw)]
    seen: set[str] = set()
    for index, check in enumerate(checks):
        if check.text in seen:
            raise where.error("duplicate check text", f"checklist.{index}")
        seen.add(check.text)
    return checks


def sample_id(user_query: str, feedback: str) -> str:
    """The stable id of a sample: 'fb-' + 12 hex digits of sha256(user_query NUL feedback),
    both without whitespace."""
    key = f"{squeeze(user_query)}\0{squeeze(feedback)}"
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"fb-{digest[:12]}"


def detect_language(*texts: str) -> str:
    """'zh' when any text holds CJK ideographs, else 'en'."""
    return "zh" if any(_CJK.search(text) for text in texts) else "en"


# The authors' generation policy: temperature by task, answers up to 4096 tokens or what the
# model's context leaves after the prompt.
TASK_TEMPERATURE = {"Text Creation": 0.7, "Text Translation": 0.7, "Knowledge Q&A": 0.1}
MAX_ANSWER_TOKENS = 4096


def generation_hints(task: str) -> dict[str, Any]:
    """Per-item generation settings that `generate` applies unless the user overrides them."""
    hints = GenerationHints(
        temperature=TASK_TEMPERATURE.get(task, 0.0), max_tokens=MAX_ANSWER_TOKENS, fit_context=True
    )
    return hints.model_dump(exclude_none=True)


def sample_item(record: dict[str, Any], where: Where) -> Item:
    """The Item of one sample record."""
    bench_type = record.get("bench_type")
    if bench_type not in SCENARIOS:
        raise where.error(f"must be one of {sorted(SCENARIOS)}, got {bench_type!r}", "bench_type")
    scenario = SCENARIOS[bench_type]
    query = string_field(record, "user_query", where)
    first = string_field(record, "origin_first_response", where)
    feedback = string_field(record, "feedback", where)
    tags = {
        "scenario": [scenario],
        "bench_type": [bench_type],
        "task": [string_field(record, "task_type", where)],
        "subtask": [string_field(record, "sub_task_type", where)],
        "feedback_type": _string_list(record, "feedback_type", where),
        "deficiency": _string_list(record, "error_type", where, optional=True),
    }
    fields = {
        "id": sample_id(query, feedback),
        "messages": [
            {"role": "user", "content": query},
            {"role": "assistant", "content": first},
            {"role": "user", "content": feedback},
        ],
        "checklist": _checklist(record.get("checklist"), scenario, where),
        "rule": "weighted" if scenario == "EC" else "any",
        "tags": tags,
        "reference": optional_string_field(record, "reference_second_response", where),
        "meta": {
            "language": detect_language(query, first, feedback),
            "generation": generation_hints(tags["task"][0]),
        },
    }
    return validate(Item, fields, path=where.path, line=where.line)


def load_fbbench(path: str | Path) -> list[Item]:
    """Load the FB-Bench samples (a JSON list, or JSONL) as Items; ids must be unique."""
    path = Path(path)
    items: list[Item] = []
    first_seen: dict[str, Where] = {}
    for where, record in located_records(path):
        item = sample_item(record, where)
        if item.id in first_seen:
            raise where.error(
                f"duplicate sample (same user_query and feedback as {first_seen[item.id]})",
                "user_query",
            )
        first_seen[item.id] = where
        items.append(item)
    return items
