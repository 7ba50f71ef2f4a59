"""The data model: benchmarks become Items with Checklists; runs produce Responses and Verdicts."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

Role = Literal["system", "user", "assistant", "tool"]
Rule = Literal["weighted", "any", "all", "mean"]
Winner = Literal["a", "b", "tie"]

WEIGHT_TOLERANCE = 1e-6
"""How far from 1 the weights of a "weighted" checklist may sum (every loader uses this)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Message(_Model):
    """One chat turn in OpenAI format."""

    role: Role
    content: str

    @field_validator("content")
    @classmethod
    def _text(cls, content: str) -> str:
        return text_only(content)


def text_only(value: str) -> str:
    """`value`, refused when it holds a lone surrogate (a "\\ud800" escape in JSON), which
    cannot be written as UTF-8 nor sent to a model."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = value[exc.start]
        raise ValueError(
            f"holds a lone surrogate (\\u{ord(bad):04x} at character {exc.start}), not text"
        ) from None
    return value


def located_error(loc: tuple[str | int, ...], message: str, value: Any) -> ValidationError:
    """A validation error at `loc` (relative to the model being validated), for a validator
    whose problem belongs to one field rather than to the whole record."""
    problem = PydanticCustomError("checkbench", "{message}", {"message": message})
    return ValidationError.from_exception_data(
        "checkbench", [InitErrorDetails(type=problem, loc=loc, input=value)]
    )


class Check(_Model):
    """One atomic yes/no requirement a response is judged against."""

    id: str
    text: str = Field(min_length=1)
    weight: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    source: str = "instruction"
    categories: list[str] = Field(default_factory=list)

    @field_validator("weight", mode="before")
    @classmethod
    def _not_boolean(cls, weight: object) -> object:
        if isinstance(weight, bool):
            raise ValueError(f"a weight is a number, not {str(weight).lower()}")
        return weight


class GenerationHints(_Model):
    """An item's own generation settings (`Item.meta["generation"]`), applied unless the user
    overrides them. Types are strict and unknown keys are refused: a misspelt hint would
    otherwise be silently ignored."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    fit_context: bool = False
    """Cap max_tokens at what the model's context leaves after the prompt."""

    @model_validator(mode="before")
    @classmethod
    def _an_object_of_known_hints(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError('must be an object, e.g. {"temperature": 0.7, "max_tokens": 512}')
        for key in data:
            if key not in cls.model_fields:
                known = ", ".join(cls.model_fields)
                raise located_error((key,), f"unknown generation hint (known: {known})", key)
        return data


_NO_HINTS = GenerationHints()
"""The hints of every item without any: one instance, shared (the model is frozen)."""


class _ItemMeta(BaseModel):
    """The keys of Item.meta that checkbench itself reads; the others are free."""

    model_config = ConfigDict(extra="allow")

    generation: GenerationHints | None = None


def weights_problem(checklist: list[Check]) -> tuple[tuple[str | int, ...], str] | None:
    """(location, problem) when a "weighted" checklist lacks a weight or its weights do not
    sum to 1 within WEIGHT_TOLERANCE (each is already finite and >= 0)."""
    for index, check in enumerate(checklist):
        if check.weight is None:
            return ("checklist", index, "weight"), "rule 'weighted' needs a weight on every check"
    total = math.fsum(check.weight or 0.0 for check in checklist)
    if not math.isclose(total, 1.0, abs_tol=WEIGHT_TOLERANCE):
        return ("checklist",), f"rule 'weighted' needs weights summing to 1, got {total:g}"
    return None


class Item(_Model):
    """A benchmark item: the conversation to answer plus the checklist to judge it by."""

    id: str = Field(min_length=1)
    messages: list[Message] = Field(min_length=1)
    checklist: list[Check] = Field(default_factory=list)
    rule: Rule = "mean"
    tags: dict[str, list[str]] = Field(default_factory=dict)
    reference: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("messages")
    @classmethod
    def _ends_with_user(cls, messages: list[Message]) -> list[Message]:
        if messages[-1].role != "user":
            raise ValueError("the last message must be the user turn to answer")
        return messages

    @field_validator("meta")
    @classmethod
    def _known_meta(cls, meta: dict[str, Any]) -> dict[str, Any]:
        if "generation" in meta:  # the only key it reads; others are free
            _ItemMeta.model_validate(meta)  # its errors are located under "meta"
        return meta

    @model_validator(mode="after")
    def _checks_consistent(self) -> Item:
        seen: set[str] = set()
        for index, check in enumerate(self.checklist):
            if check.id in seen:
                raise located_error(
                    ("checklist", index, "id"), "check ids must be unique within an item", check.id
                )
            seen.add(check.id)
        if self.rule == "weighted" and (problem := weights_problem(self.checklist)):
            raise located_error(*problem, self.checklist)
        return self

    def generation_hints(self) -> GenerationHints:
        """The item's generation hints (all unset when it has none)."""
        hints = self.meta.get("generation")
        return GenerationHints.model_validate(hints) if hints else _NO_HINTS

    def tag(self, facet: str) -> list[str]:
        """Values of one tag facet (empty when absent)."""
        return self.tags.get(facet, [])


Sample = Annotated[int, Field(ge=0, exclude_if=lambda sample: sample == 0)]
"""Which of a model's several answers to an item (`--samples K`: 0 to K-1); 0, the only one
of a run without samples, is left out of the JSON, which stays as it was before samples."""


class Usage(_Model):
    """Token counts of one model call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class Response(_Model):
    """A candidate model's answer to an Item; `error` set means no usable answer. `meta`
    holds what an imported record said about this one answer (e.g. its published score)."""

    item_id: str
    model: str
    sample: Sample = 0
    content: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    error: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class Verdict(_Model):
    """A judge's verdict on one check of one response; passed=None means unscored."""

    item_id: str
    model: str
    sample: Sample = 0
    judge: str
    check_id: str
    passed: bool | None
    p_yes: float | None = None
    reason: str = ""
    raw: str | None = None
    decided_by: str | None = None
    """In a cascade's verdicts (judges.cascade), the judge that gave this one."""


class PairVerdict(_Model):
    """One pairwise judgment: response `a` shown first, `b` second; winner None = unscored."""

    item_id: str
    judge: str
    a: str
    b: str
    winner: Winner | None
    reason: str = ""
    raw: str | None = None
    attempts: int = 1
