"""FB-Bench's published judgment files (one JSONL per evaluated model) as Items, Responses and
Verdicts.

Judgment records add `second_response`, `infer_model`, `judge_model`, `score` and `judgement`
to the sample fields. Verdicts are rebuilt from `judgement`; the file's own `score` is kept in
`Item.meta["stored_scores"][model]` (None where the judgment failed) so that a reproduction
can use either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from checkbench.errors import InputError
from checkbench.fbbench.dataset import (
    WEIGHT_TOLERANCE,
    Where,
    is_number,
    located_records,
    optional_string_field,
    sample_item,
    string_field,
)
from checkbench.schema import Item, Response, Verdict

STORED_SCORES = "stored_scores"
"""Item.meta key: {model: the judgment file's `score`, or None where the judgment failed}."""

FAILED_KEYS = ("API fialed", "API failed")
"""Keys marking a failed judgment; the first is the authors' spelling."""

_RESULT_KEYS = ("评判结果", "judgement result")
_REASON_KEYS = ("评判理由", "judgement reason")
_RESULTS = {"是": True, "yes": True, "否": False, "no": False}

def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _first_key(entry: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if key in entry), None)


def _entry_verdict(entry: Any, field: str, where: Where) -> tuple[bool | None, str]:
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


def _judgement_outcomes(item: Item, judgement: dict[str, Any], where: Where) -> list[_Outcome]:
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


def _stored_score(record: dict[str, Any], where: Where) -> float:
    score = record.get("score")
    if not is_number(score) or not -WEIGHT_TOLERANCE <= score <= 1 + WEIGHT_TOLERANCE:
        raise where.error(f"must be a number in [0, 1], got {score!r}", "score")
    return float(score)


def _judged_record(
    record: dict[str, Any], where: Where, default_model: str
) -> tuple[Item, Response, list[Verdict]]:
    """The Item, Response and Verdicts of one judgment record."""
    item = sample_item(record, where)
    model = optional_string_field(record, "infer_model", where) or default_model
    judge = string_field(record, "judge_model", where)
    content = string_field(record, "second_response", where, blank_ok=True)
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
        self.items: dict[str, tuple[Item, Where]] = {}
        self.responses: list[Response] = []
        self.verdicts: list[Verdict] = []
        self.records: dict[tuple[str, str], Where] = {}

    def add_file(self, path: Path) -> None:
        for where, record in located_records(path):
            self.add(*_judged_record(record, where, path.stem), where)

    def add(self, item: Item, response: Response, verdicts: list[Verdict], where: Where) -> None:
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

    def _merge_item(self, item: Item, where: Where) -> None:
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
