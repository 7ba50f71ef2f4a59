"""Gold data for judge meta-evaluation: an Item, its gold-labelled responses, a judge's
predictions, and the gold preference graph between the responses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from checkbench.ifrewardbench.critiques import CritiqueVerdicts
from checkbench.schema import Item, Message

InstructionType = Literal["Single_Turn", "Multi_Turn", "System_Prompt"]
Label = Literal[0, 1]

CATEGORY = "category:"
"""Prefix of a constraint category (Content, Format, ...) in Check.categories."""
COMPOSITION = "composition:"
"""Prefix of a constraint composition type (Single, And, Chain, Selection) in Check.categories."""


class RecordError(ValueError):
    """An inconsistency inside one record, located by a dotted field path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MetaResponse(_Model):
    """One candidate response with gold labels and, optionally, a judge's predictions.

    `pred_labels[k] = None` means the judge gave no usable verdict on constraint k (unscored);
    `pred_labels = None` means the judge did not verify this response at all (all unscored).
    `pred_score` is a judge's ranking score (pointwise, or from pairwise wins), None if absent.
    `critique` says how `pred_labels` were read from a released judge output's critique, when
    they were.
    """

    response_id: str
    response: str
    labels: list[Label]
    pred_labels: list[Label | None] | None = None
    pred_score: float | None = Field(default=None, allow_inf_nan=False)
    critique: CritiqueVerdicts | None = None


class Edge(_Model):
    """A gold preference: response `chosen` follows the instruction better than `rejected`."""

    pair_id: str
    chosen: str
    rejected: str


class MetaRecord(_Model):
    """One instruction of a meta-evaluation set, checked for internal consistency."""

    item: Item
    generator: str
    instruction_type: InstructionType
    responses: list[MetaResponse] = Field(min_length=1)
    preference_graph: list[Edge] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> MetaRecord:
        self._check_labels()
        self._check_edges()
        return self

    def _check_labels(self) -> None:
        n = len(self.item.checklist)
        if n == 0:
            raise RecordError("item.checklist", "no constraints to judge")
        seen: set[str] = set()
        for i, resp in enumerate(self.responses):
            if resp.response_id in seen:
                raise RecordError(f"responses.{i}.response_id", f"duplicate {resp.response_id!r}")
            seen.add(resp.response_id)
            for name in ("labels", "pred_labels"):
                values = getattr(resp, name)
                if values is not None and len(values) != n:
                    raise RecordError(
                        f"responses.{i}.{name}",
                        f"{len(values)} labels for a checklist of {n} items",
                    )

    def _check_edges(self) -> None:
        ids = {resp.response_id for resp in self.responses}
        seen: set[tuple[str, str]] = set()
        for j, edge in enumerate(self.preference_graph):
            for side in ("chosen", "rejected"):
                if getattr(edge, side) not in ids:
                    raise RecordError(
                        f"preference_graph.{j}.{side}",
                        f"no response with id {getattr(edge, side)!r}",
                    )
            if edge.chosen == edge.rejected:
                raise RecordError(f"preference_graph.{j}", "a response is preferred to itself")
            if (edge.rejected, edge.chosen) in seen:
                raise RecordError(f"preference_graph.{j}", "contradicts an earlier edge")
            if _reaches(seen, edge.rejected, edge.chosen):
                raise RecordError(
                    f"preference_graph.{j}",
                    f"closes a cycle: {edge.rejected!r} is already preferred, through other "
                    f"responses, to {edge.chosen!r}",
                )
            seen.add((edge.chosen, edge.rejected))


def _reaches(edges: set[tuple[str, str]], start: str, goal: str) -> bool:
    """Whether the preferences `edges` lead from `start` to `goal`."""
    todo, seen = [start], {start}
    while todo:
        node = todo.pop()
        for chosen, rejected in edges:
            if chosen == node and rejected not in seen:
                if rejected == goal:
                    return True
                seen.add(rejected)
                todo.append(rejected)
    return False


def count_turns(messages: list[Message]) -> int:
    """User turns of a conversation as the released IF-RewardBench code counts them: messages
    after a leading system prompt, (n + 1) // 2."""
    rest = messages[1:] if messages[0].role == "system" else messages
    return (len(rest) + 1) // 2
