"""IF-RewardBench records (a JSON list, as released, or JSONL) as MetaRecords.

Each record becomes an Item (id = record id; checks "0", "1", ... in checklist order, whose
categories are "category:<constraint category>" and "composition:<composition type>" taken
from `constraint_type` by `item_id`; tags instruction_type, turns, n_constraints, generator),
its gold-labelled responses with the judge's optional `pred_labels` and `pred_score`, and its
preference graph. Ids may be numbers or strings; they are kept as strings. A response without
`pred_labels` that carries the judge's raw `critique` (the released judge outputs) gets its
predicted labels from it (checkbench.ifrewardbench.critiques; `missing` says what constraints
without a verdict become, and `MetaResponse.critique` counts them). Other fields (copies of each
response inside its edges) are ignored.

Errors name the file, the record (the 1-based record number for a JSON list, the line number
for JSONL) and the field, e.g. "responses.1.labels".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from checkbench.errors import InputError
from checkbench.ifrewardbench.critiques import MissingVerdicts, critique_labels
from checkbench.ifrewardbench.records import (
    CATEGORY,
    COMPOSITION,
    Edge,
    InstructionType,
    Label,
    MetaRecord,
    MetaResponse,
    RecordError,
    count_turns,
)
from checkbench.jsonl import field_path, iter_json_records, validate
from checkbench.schema import Item, Message


class _Raw(BaseModel):
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)


class _Constraint(_Raw):
    item_id: int
    constraint_categories: list[str] = Field(default_factory=list)
    constraint_composition_types: list[str] = Field(default_factory=list)


class _Response(_Raw):
    response_id: str
    response: str
    labels: list[Label]
    pred_labels: list[Label | None] | None = None
    pred_score: float | None = Field(default=None, allow_inf_nan=False)
    critique: str | None = None


class _End(_Raw):
    response_id: str


class _Edge(_Raw):
    pair_id: str | None = None
    chosen: _End
    rejected: _End


class _Record(_Raw):
    id: str
    response_generation_model: str
    instruction_type: InstructionType
    messages: list[Message] = Field(min_length=1)
    checklist: list[str] = Field(min_length=1)
    constraint_type: list[_Constraint] = Field(default_factory=list)
    responses: list[_Response] = Field(min_length=1)
    preference_graph: list[_Edge] = Field(default_factory=list)


def _categories(raw: _Record) -> list[list[str]]:
    """Each checklist item's categories, prefixed, from `constraint_type` by item_id."""
    categories: list[list[str]] = [[] for _ in raw.checklist]
    seen: set[int] = set()
    for j, entry in enumerate(raw.constraint_type):
        if not 0 <= entry.item_id < len(raw.checklist) or entry.item_id in seen:
            problem = "repeats" if entry.item_id in seen else "is outside"
            raise RecordError(
                f"constraint_type.{j}.item_id",
                f"{entry.item_id} {problem} the checklist indices 0..{len(raw.checklist) - 1}",
            )
        seen.add(entry.item_id)
        categories[entry.item_id] = [CATEGORY + c for c in entry.constraint_categories] + [
            COMPOSITION + c for c in entry.constraint_composition_types
        ]
    return categories


def _item(raw: _Record) -> Item:
    checks = [
        {"id": str(k), "text": text, "categories": cats}
        for k, (text, cats) in enumerate(zip(raw.checklist, _categories(raw), strict=True))
    ]
    tags = {
        "instruction_type": [raw.instruction_type],
        "turns": [str(count_turns(raw.messages))],
        "n_constraints": [str(len(raw.checklist))],
        "generator": [raw.response_generation_model],
    }
    return Item.model_validate(
        {"id": raw.id, "messages": raw.messages, "checklist": checks, "tags": tags}
    )


def _response(raw: _Response, constraints: int, missing: MissingVerdicts | None) -> MetaResponse:
    """The response, its predictions read from its critique when it has one but no labels
    (and `missing` is not None)."""
    fields = raw.model_dump(exclude={"critique"})
    if raw.pred_labels is None and missing is not None and "critique" in raw.model_fields_set:
        fields["pred_labels"], fields["critique"] = critique_labels(
            raw.critique, constraints, missing
        )
    return MetaResponse(**fields)


def _meta_record(raw: _Record, missing: MissingVerdicts | None) -> MetaRecord:
    return MetaRecord(
        item=_item(raw),
        generator=raw.response_generation_model,
        instruction_type=raw.instruction_type,
        responses=[_response(r, len(raw.checklist), missing) for r in raw.responses],
        preference_graph=[
            Edge(
                pair_id=e.pair_id if e.pair_id is not None else str(j),
                chosen=e.chosen.response_id,
                rejected=e.rejected.response_id,
            )
            for j, e in enumerate(raw.preference_graph)
        ],
    )


def _located(exc: RecordError | ValidationError) -> tuple[str, str]:
    """(field, message) of the first problem, whether a pydantic error or a RecordError."""
    if isinstance(exc, RecordError):
        return exc.field, str(exc)
    cause = exc.errors()[0].get("ctx", {}).get("error")
    if isinstance(cause, RecordError):
        return cause.field, str(cause)
    return field_path(exc)


def parse_record(
    record: dict[str, Any],
    *,
    path: str | Path,
    line: int,
    missing: MissingVerdicts | None = "pass",
) -> MetaRecord:
    """One IF-RewardBench record as a MetaRecord; a bad record raises a located InputError.
    Critiques are read unless `missing` is None."""
    raw = validate(_Record, record, path=path, line=line)
    try:
        return _meta_record(raw, missing)
    except (RecordError, ValidationError) as exc:
        field, message = _located(exc)
        raise InputError(message, path=path, line=line, field=field) from None


def load_ifrewardbench(
    path: str | Path, *, missing: MissingVerdicts | None = "pass"
) -> list[MetaRecord]:
    """Load and check every record; the first bad record stops the load.

    Responses without `pred_labels` get them from their `critique`: a constraint without a
    verdict is padded as a pass (`missing="pass"`, the released metric script's rule) or left
    unscored (`"unscored"`); `missing=None` ignores critiques (for running another judge).
    """
    path = Path(path)
    first_line: dict[str, int] = {}
    records = []
    for line, data in iter_json_records(path):
        record = parse_record(data, path=path, line=line, missing=missing)
        if record.item.id in first_line:
            raise InputError(
                f"duplicate id {record.item.id!r} (first at {first_line[record.item.id]})",
                path=path,
                line=line,
                field="id",
            )
        first_line[record.item.id] = line
        records.append(record)
    return records
