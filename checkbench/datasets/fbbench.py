"""FB-Bench: the sample file and the authors' published judgment files as Items, Responses and
Verdicts.

A sample becomes an Item whose messages are [user `user_query`, assistant
`origin_first_response`, user `feedback`]. Error Correction (EC) checklists are weighted
(rule "weighted"); Response Maintenance (RM) checklists are alternatives (rule "any").

Tags: scenario ["EC" | "RM"], bench_type, task, subtask, feedback_type, deficiency (the
`error_type` list; empty for RM).

Judgment files (one JSONL per evaluated model) add `second_response`, `infer_model`,
`judge_model`, `score` and `judgement`. Verdicts are rebuilt from `judgement`; the file's own
`score` is kept in `Item.meta["stored_scores"][model]` (None where the judgment failed) so that
a reproduction can use either.

Errors name the file, the record (the 1-based record number for a JSON list, the line number
for JSONL) and the field.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkbench.errors import InputError
from checkbench.jsonl import iter_json_records, validate
from checkbench.schema import Check, Item, Response, Verdict

SCENARIOS: dict[str, str] = {"Error Correction": "EC", "Response Maintenance": "RM"}
"""bench_type -> scenario tag."""

STORED_SCORES = "stored_scores"
"""Item.meta key: {model: the judgment file's `score`, or None where the judgment failed}."""

FAILED_KEYS = ("API fialed", "API failed")
"""Keys marking a failed judgment; the first is the authors' spelling."""

_RESULT_KEYS = ("评判结果", "judgement result")
_REASON_KEYS = ("评判理由", "judgement reason")
_RESULTS = {"是": True, "yes": True, "否": False, "no": False}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WEIGHT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class _Where:
    """The location of one record, for error messages."""

    path: Path
    line: int

    def error(self, message: str, field: str | None = None) -> InputError:
        return InputError(message, path=self.path, line=self.line, field=field)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


# ---------------------------------------------------------------- reading records


def _records(path: Path) -> Iterator[tuple[_Where, dict[str, Any]]]:
    """The records of a JSON list or JSONL file, each with its location."""
    for line, record in iter_json_records(path):
        yield _Where(path, line), record


# ---------------------------------------------------------------- field parsing


def _string(record: dict[str, Any], key: str, where: _Where, *, blank_ok: bool = False) -> str:
    """A required string field."""
    value = record.get(key)
    if not isinstance(value, str):
        raise where.error("missing" if value is None else "must be a string", key)
    if not blank_ok and not value.strip():
        raise where.error("must not be blank", key)
    return value


def _optional_string(record: dict[str, Any], key: str, where: _Where) -> str | None:
    """An optional string field; absent, null or blank gives None."""
    value = record.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _string(record, key, where)


def _string_list(
    record: dict[str, Any], key: str, where: _Where, *, optional: bool = False
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


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _weighted_check(entry: Any, index: int, where: _Where) -> Check:
    """An EC checklist entry: [text, weight] with 0 < weight <= 1."""
    field = f"checklist.{index}"
    if not (isinstance(entry, list) and len(entry) == 2):
        raise where.error("an Error Correction check must be [text, weight]", field)
    text, weight = entry
    if not isinstance(text, str) or not text.strip():
        raise where.error("check text must be a non-blank string", field)
    if not _is_number(weight) or not 0 < weight <= 1:
        raise where.error(f"check weight must be a number in (0, 1], got {weight!r}", field)
    return Check(id=f"c{index + 1}", text=text, weight=float(weight))


def _alternative_check(entry: Any, index: int, where: _Where) -> Check:
    """An RM checklist entry: a text, one of several alternatives."""
    if not isinstance(entry, str) or not entry.strip():
        raise where.error(
            "a Response Maintenance check must be a non-blank string", f"checklist.{index}"
        )
    return Check(id=f"c{index + 1}", text=entry)


def _checklist(raw: Any, scenario: str, where: _Where) -> list[Check]:
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
    if scenario == "EC":
        total = sum(check.weight or 0.0 for check in checks)
        if not math.isclose(total, 1.0, abs_tol=_WEIGHT_TOLERANCE):
            raise where.error(f"check weights must sum to 1, got {total:g}", "checklist")
    return checks


def sample_id(user_query: str, feedback: str) -> str:
    """The stable id of a sample: 'fb-' + 12 hex digits of sha256(user_query NUL feedback)."""
    digest = hashlib.sha256(f"{user_query}\0{feedback}".encode()).hexdigest()
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
    return {
        "temperature": TASK_TEMPERATURE.get(task, 0.0),
        "max_tokens": MAX_ANSWER_TOKENS,
        "fit_context": True,
    }


def _item(record: dict[str, Any], where: _Where) -> Item:
    """The Item of one sample record."""
    bench_type = record.get("bench_type")
    if bench_type not in SCENARIOS:
        raise where.error(f"must be one of {sorted(SCENARIOS)}, got {bench_type!r}", "bench_type")
    scenario = SCENARIOS[bench_type]
    query = _string(record, "user_query", where)
    first = _string(record, "origin_first_response", where)
    feedback = _string(record, "feedback", where)
    tags = {
        "scenario": [scenario],
        "bench_type": [bench_type],
        "task": [_string(record, "task_type", where)],
        "subtask": [_string(record, "sub_task_type", where)],
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
        "reference": _optional_string(record, "reference_second_response", where),
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
    first_seen: dict[str, _Where] = {}
    for where, record in _records(path):
        item = _item(record, where)
        if item.id in first_seen:
            raise where.error(
                f"duplicate sample (same user_query and feedback as {first_seen[item.id]})",
                "user_query",
            )
        first_seen[item.id] = where
        items.append(item)
    return items


# ---------------------------------------------------------------- judgments


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _first_key(entry: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if key in entry), None)


def _entry_verdict(entry: Any, field: str, where: _Where) -> tuple[bool | None, str]:
    """(passed, reason) of one judgement entry; an unrecognised result is unscored (None)."""
    if not isinstance(entry, dict):
        raise where.error("a judgement entry must be an object", field)
    result_key = _first_key(entry, _RESULT_KEYS)
    if result_key is None:
        raise where.error(f"a judgement entry needs one of {list(_RESULT_KEYS)}", field)
    result = entry[result_key]
    passed = _RESULTS.get(result.strip().lower()) if isinstance(result, str) else None
    reason_key = _first_key(entry, _REASON_KEYS)
    reason = entry[reason_key] if reason_key else ""
    return passed, reason if isinstance(reason, str) else _dump(reason)


def _without_whitespace(text: str) -> str:
    return "".join(text.split())


def _match_entries(item: Item, judgement: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """Judgement keys matched to check ids (exact text first, then ignoring whitespace),
    and the keys that matched no check."""
    remaining = list(judgement)
    matched: dict[str, str] = {}
    for normalise in (lambda text: text, _without_whitespace):
        by_text = {normalise(c.text): c.id for c in item.checklist if c.id not in matched}
        unmatched = []
        for key in remaining:
            check_id = by_text.pop(normalise(key), None)
            if check_id is None:
                unmatched.append(key)
            else:
                matched[check_id] = key
        remaining = unmatched
    return matched, remaining


_Outcome = tuple[bool | None, str, str | None]
"""(passed, reason, raw) of one check."""


def _judgement_outcomes(item: Item, judgement: dict[str, Any], where: _Where) -> list[_Outcome]:
    """One outcome per check; a check the judgement does not cover is unscored, and its raw
    text holds the judgement entries that matched no check."""
    matched, unmatched = _match_entries(item, judgement)
    leftover = _dump({key: judgement[key] for key in unmatched}) if unmatched else None
    outcomes: list[_Outcome] = []
    for check in item.checklist:
        key = matched.get(check.id)
        if key is None:
            outcomes.append((None, "checklist item not found in the judgement", leftover))
        else:
            passed, reason = _entry_verdict(judgement[key], f"judgement.{_short(key)}", where)
            outcomes.append((passed, reason, _dump(judgement[key])))
    return outcomes


def _failure(judgement: dict[str, Any]) -> str | None:
    """The failure message of a failed judgment, else None."""
    key = _first_key(judgement, FAILED_KEYS)
    if key is None:
        return None
    message = judgement[key]
    return f"{key}: {message if isinstance(message, str) else _dump(message)}"


def _stored_score(record: dict[str, Any], where: _Where) -> float:
    score = record.get("score")
    if not _is_number(score) or not -_WEIGHT_TOLERANCE <= score <= 1 + _WEIGHT_TOLERANCE:
        raise where.error(f"must be a number in [0, 1], got {score!r}", "score")
    return float(score)


def _judged_record(
    record: dict[str, Any], where: _Where, default_model: str
) -> tuple[Item, Response, list[Verdict]]:
    """The Item, Response and Verdicts of one judgment record."""
    item = _item(record, where)
    model = _optional_string(record, "infer_model", where) or default_model
    judge = _string(record, "judge_model", where)
    content = _string(record, "second_response", where, blank_ok=True)
    score = _stored_score(record, where)
    judgement = record.get("judgement")
    if not isinstance(judgement, dict) or not judgement:
        raise where.error("must be a non-empty object", "judgement")
    failure = _failure(judgement)
    if failure is None:
        outcomes = _judgement_outcomes(item, judgement, where)
    else:
        outcomes = [(None, failure, failure)] * len(item.checklist)
    verdicts = [
        Verdict(
            item_id=item.id,
            model=model,
            judge=judge,
            check_id=check.id,
            passed=passed,
            reason=reason,
            raw=raw,
        )
        for check, (passed, reason, raw) in zip(item.checklist, outcomes, strict=True)
    ]
    item.meta[STORED_SCORES] = {model: None if failure else score}
    return item, Response(item_id=item.id, model=model, content=content), verdicts


class _Judgments:
    """Judgment records gathered from one or more files: items merged by id, one record per
    (model, item)."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[Item, _Where]] = {}
        self.responses: list[Response] = []
        self.verdicts: list[Verdict] = []
        self.records: dict[tuple[str, str], _Where] = {}

    def add_file(self, path: Path) -> None:
        for where, record in _records(path):
            self.add(*_judged_record(record, where, path.stem), where)

    def add(self, item: Item, response: Response, verdicts: list[Verdict], where: _Where) -> None:
        key = (response.model, item.id)
        if key in self.records:
            raise where.error(
                f"duplicate judgment of this sample for model {response.model!r} "
                f"(first at {self.records[key]})",
                "user_query",
            )
        self.records[key] = where
        self._merge_item(item, where)
        self.responses.append(response)
        self.verdicts.extend(verdicts)

    def _merge_item(self, item: Item, where: _Where) -> None:
        if item.id not in self.items:
            self.items[item.id] = (item, where)
            return
        known, known_where = self.items[item.id]
        for name in ("messages", "checklist", "rule", "tags", "reference"):
            if getattr(known, name) != getattr(item, name):
                raise where.error(f"differs from the same sample at {known_where}", name)
        known.meta[STORED_SCORES].update(item.meta[STORED_SCORES])

    def result(self) -> tuple[list[Item], list[Response], list[Verdict]]:
        return [item for item, _ in self.items.values()], self.responses, self.verdicts


def load_fbbench_judgments(path: str | Path) -> tuple[list[Item], list[Response], list[Verdict]]:
    """Load one published judgment file (JSONL, or a JSON list).

    The model is each record's `infer_model`, else the file stem; the judge is `judge_model`.
    A failed judgment ({"API fialed": message}) gives every check an unscored Verdict whose
    reason and raw hold the message.
    """
    judgments = _Judgments()
    judgments.add_file(Path(path))
    return judgments.result()


def load_fbbench_judgment_dir(
    directory: str | Path,
) -> tuple[list[Item], list[Response], list[Verdict]]:
    """Load every `*.jsonl` judgment file of a directory (one per model, in name order)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError("directory not found", path=directory)
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        raise InputError("no .jsonl judgment files", path=directory)
    judgments = _Judgments()
    for path in files:
        judgments.add_file(path)
    return judgments.result()
