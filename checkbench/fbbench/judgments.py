"""FB-Bench's published judgment files (one JSONL per evaluated model) as Items, Responses and
Verdicts.

Judgment records add `second_response`, `infer_model`, `judge_model`, `score` and `judgement`
to the sample fields. Verdicts are rebuilt from `judgement`, its entries matched to the checks
(`matching`); what the record says beyond them (its own `score`, entries that answer no check,
checks without an entry, this file's wording of a reworded sample) is kept with the response,
as `RecordFacts` in `Response.meta[RECORD_KEY]`. A check without an entry is counted as not met,
as the published scores count it; the import summary and the leaderboard show how many.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from checkbench.errors import InputError
from checkbench.fbbench.dataset import (
    Where,
    is_number,
    located_records,
    optional_string_field,
    sample_item,
    string_field,
)
from checkbench.fbbench.matching import match_entries
from checkbench.fbbench.versions import ImportSummary, Tally, differences, own_versions
from checkbench.inputs import input_dir
from checkbench.schema import WEIGHT_TOLERANCE, Item, Response, Verdict

RECORD_KEY = "fb_bench_record"
"""Response.meta key of an imported record's RecordFacts."""

FAILED_KEYS = ("API fialed", "API failed")
"""Keys marking a failed judgment; the first is the authors' spelling."""

UNJUDGED_REASON = "no judgment entry for this check: counted as not met, as the published scores do"

_RESULT_KEYS = ("评判结果", "judgement result")
_REASON_KEYS = ("评判理由", "judgement reason")
_RESULTS = {"是": True, "yes": True, "否": False, "no": False}


class RecordFacts(BaseModel):
    """What one published judgment record says beyond its verdicts."""

    judge: str
    """The record's `judge_model`, whose verdicts `stored_score` summed."""
    stored_score: float | None
    """The record's `score`; None where the judgment failed (the file says 0)."""
    rematched: dict[str, str] = Field(default_factory=dict)
    """Check id -> the judge's key, for checks matched by closest text or by position."""
    unjudged: list[str] = Field(default_factory=list)
    """Check ids without a judgment entry (their verdicts say not met)."""
    unmatched: dict[str, Any] = Field(default_factory=dict)
    """Judgment entries that answer no check, as the judge wrote them."""
    echoed_weights: dict[str, float | None] = Field(default_factory=dict)
    """Check id -> the weight the judge echoed, where it differs from the check's."""
    versions: dict[str, Any] = Field(default_factory=dict)
    """Sample field -> this file's value, where its wording differs from the item's."""


def record_facts(response: Response) -> RecordFacts | None:
    """The facts of an imported record (None for a response that was not imported)."""
    raw = response.meta.get(RECORD_KEY)
    return None if raw is None else RecordFacts.model_validate(raw)


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _first_key(entry: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if key in entry), None)


def _entry(judgement: dict[str, Any], key: str, where: Where) -> tuple[bool | None, str]:
    """(passed, reason) of one judgement entry; an unrecognised result is unscored (None)."""
    entry, field_name = judgement[key], f"judgement.{_short(key)}"
    if not isinstance(entry, dict):
        raise where.error("a judgement entry must be an object", field_name)
    result_key = _first_key(entry, _RESULT_KEYS)
    if result_key is None:
        raise where.error(f"a judgement entry needs one of {list(_RESULT_KEYS)}", field_name)
    result = entry[result_key]
    passed = _RESULTS.get(result.strip().lower()) if isinstance(result, str) else None
    reason_key = _first_key(entry, _REASON_KEYS)
    reason = entry[reason_key] if reason_key else ""
    return passed, reason if isinstance(reason, str) else _dump(reason)


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


_Outcome = tuple[bool | None, str, str | None]
"""(passed, reason, raw) of one check."""


def _judged_checks(
    item: Item, judgement: dict[str, Any], where: Where, tally: Tally, facts: RecordFacts
) -> list[_Outcome]:
    """One outcome per check, from the entry matched to it; facts and tally record how."""
    matching = match_entries([check.text for check in item.checklist], list(judgement))
    outcomes: list[_Outcome] = []
    for index, check in enumerate(item.checklist):
        if index not in matching.matched:
            facts.unjudged.append(check.id)
            outcomes.append((False, UNJUDGED_REASON, None))
            continue
        key, how = matching.matched[index]
        tally.matched[how] += 1
        if how in ("closest", "position"):
            facts.rematched[check.id] = key
        passed, reason = _entry(judgement, key, where)
        echoed = judgement[key].get("weight")
        if echoed != check.weight:
            facts.echoed_weights[check.id] = echoed
        outcomes.append((passed, reason, _dump({key: judgement[key]})))
    facts.unmatched = {key: judgement[key] for key in matching.unmatched_keys}
    tally.unjudged += len(facts.unjudged)
    tally.unmatched += len(facts.unmatched)
    tally.echoed_weights += len(facts.echoed_weights)
    return outcomes


@dataclass
class _Record:
    """One judgment record read: its item, response, verdicts and facts."""

    item: Item
    response: Response
    verdicts: list[Verdict]
    facts: RecordFacts
    where: Where


def _read_record(record: dict[str, Any], where: Where, default_model: str, tally: Tally) -> _Record:
    item = sample_item(record, where)
    model = optional_string_field(record, "infer_model", where) or default_model
    judge = string_field(record, "judge_model", where)
    content = string_field(record, "second_response", where, blank_ok=True)
    score = _stored_score(record, where)
    judgement = record.get("judgement")
    if not isinstance(judgement, dict) or not judgement:
        raise where.error("must be a non-empty object", "judgement")
    failure = _failure(judgement)
    facts = RecordFacts(judge=judge, stored_score=None if failure else score)
    if failure is None:
        outcomes = _judged_checks(item, judgement, where, tally, facts)
    else:
        tally.failed += 1
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
    response = Response(item_id=item.id, model=model, content=content)
    return _Record(item, response, verdicts, facts, where)


@dataclass
class JudgmentImport:
    """What judgment files hold: items (one per sample), responses, verdicts, and the summary
    of the import. Unpacks as (items, responses, verdicts)."""

    items: list[Item]
    responses: list[Response]
    verdicts: list[Verdict]
    summary: ImportSummary

    def __iter__(self) -> Iterator[Any]:
        return iter((self.items, self.responses, self.verdicts))


@dataclass
class _Judgments:
    """Judgment records gathered from one or more files: samples merged by id (see
    `versions`), one record per (model, sample)."""

    items: dict[str, tuple[Item, str]] = field(default_factory=dict)
    responses: list[Response] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    records: dict[tuple[str, str], Where] = field(default_factory=dict)
    tally: Tally = field(default_factory=Tally)

    def know(self, items: Iterable[Item], where: str) -> None:
        """Items already held elsewhere (e.g. the run): their versions are the reference."""
        for item in items:
            self.items.setdefault(item.id, (item, where))

    def add_file(self, path: Path) -> None:
        self.tally.files += 1
        for where, raw in located_records(path):
            self.add(_read_record(raw, where, path.stem, self.tally))

    def add(self, record: _Record) -> None:
        item, response = record.item, record.response
        key = (response.model, item.id)
        if key in self.records:
            raise record.where.error(
                f"duplicate judgment of this sample for model {response.model!r} "
                f"(first at {self.records[key]})",
                "user_query",
            )
        self.records[key] = record.where
        self.tally.records += 1
        self.tally.models.add(response.model)
        if item.id in self.items:
            known, known_where = self.items[item.id]
            found, conflict = differences(known, item)
            if conflict is not None:
                raise record.where.error(f"differs from the same sample at {known_where}", conflict)
            self.tally.differences(item.id, found)
            record.facts.versions = own_versions(item, found)
        else:
            self.items[item.id] = (item, str(record.where))
        response.meta[RECORD_KEY] = record.facts.model_dump(mode="json", exclude_defaults=True)
        self.responses.append(response)
        self.verdicts.extend(record.verdicts)

    def result(self) -> JudgmentImport:
        read = {item_id for _, item_id in self.records}
        items = [item for item_id, (item, _) in self.items.items() if item_id in read]
        summary = self.tally.summary(read)
        return JudgmentImport(items, self.responses, self.verdicts, summary)


def _load(paths: Iterable[Path], known: Iterable[Item]) -> JudgmentImport:
    judgments = _Judgments()
    judgments.know(known, "the run")
    for path in paths:
        judgments.add_file(path)
    return judgments.result()


def load_fbbench_judgments(path: str | Path, *, known: Iterable[Item] = ()) -> JudgmentImport:
    """Load one published judgment file (JSONL, or a JSON list).

    The model is each record's `infer_model`, else the file stem; the judge is `judge_model`.
    A failed judgment ({"API fialed": message}) gives every check an unscored Verdict whose
    reason and raw hold the message. `known` items (e.g. those already in the run to import
    into) are the versions the file's samples are compared with; those the file judges are
    returned unchanged.
    """
    return _load([Path(path)], known)


def load_fbbench_judgment_dir(
    directory: str | Path, *, known: Iterable[Item] = ()
) -> JudgmentImport:
    """Load every `*.jsonl` judgment file of a directory (one per model, in name order), as
    `load_fbbench_judgments` loads one."""
    directory = input_dir(directory)
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        raise InputError("no .jsonl judgment files", path=directory)
    return _load(files, known)
