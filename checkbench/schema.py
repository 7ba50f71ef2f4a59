"""The data model: benchmarks become Items with Checklists; runs produce Responses and Verdicts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Role = Literal["system", "user", "assistant", "tool"]
Rule = Literal["weighted", "any", "all", "mean"]
Winner = Literal["a", "b", "tie"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Message(_Model):
    """One chat turn in OpenAI format."""

    role: Role
    content: str


class Check(_Model):
    """One atomic yes/no requirement a response is judged against."""

    id: str
    text: str = Field(min_length=1)
    weight: float | None = None
    source: str = "instruction"
    categories: list[str] = Field(default_factory=list)


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

    @model_validator(mode="after")
    def _checks_consistent(self) -> Item:
        ids = [c.id for c in self.checklist]
        if len(set(ids)) != len(ids):
            raise ValueError("check ids must be unique within an item")
        if self.rule == "weighted" and any(c.weight is None for c in self.checklist):
            raise ValueError("rule 'weighted' needs a weight on every check")
        return self

    def tag(self, facet: str) -> list[str]:
        """Values of one tag facet (empty when absent)."""
        return self.tags.get(facet, [])


class Usage(_Model):
    """Token counts of one model call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class Response(_Model):
    """A candidate model's answer to an Item; `error` set means no usable answer. `meta`
    holds what an imported record said about this one answer (e.g. its published score)."""

    item_id: str
    model: str
    content: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    error: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class Verdict(_Model):
    """A judge's verdict on one check of one response; passed=None means unscored."""

    item_id: str
    model: str
    judge: str
    check_id: str
    passed: bool | None
    p_yes: float | None = None
    reason: str = ""
    raw: str | None = None


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
