"""Asking a model for JSON: extract, validate, re-ask a bounded number of times, never invent."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.schema import Message
from checkbench.steps.caller import Caller

T = TypeVar("T")

REASK = (
    "That answer could not be used: {problem}. Reply again with only the JSON object that the "
    "instructions ask for."
)


class Unusable(ValueError):
    """A model answer that does not satisfy what was asked; the message says why."""


@dataclass(frozen=True)
class Structured(Generic[T]):
    """The parsed value (None if nothing was usable), the last raw answer, the last problem."""

    value: T | None
    raw: str | None
    problem: str | None
    attempts: int


def extract_json(raw: str) -> Any:
    """The JSON object or array in a model answer, tolerating code fences and chatter around it."""
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", raw.strip())
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise Unusable("no JSON object found")
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    if end <= start:
        raise Unusable("the JSON is incomplete")
    try:
        return json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise Unusable(f"invalid JSON ({exc.msg})") from None


async def ask_structured(
    caller: Caller,
    backend: ChatBackend,
    request: ChatRequest,
    parse: Callable[[str], T],
    *,
    role: str,
    reasks: int = 2,
) -> Structured[T]:
    """Call the model and parse its answer; on `Unusable`, show it the problem and ask again.

    Each re-ask is a new request (the bad answer plus the problem appended), so it is cached
    and resumable like any other call. A failed call ends the attempts at once.
    """
    raw: str | None = None
    problem: str | None = None
    for attempt in range(1, reasks + 2):
        outcome = await caller.call(backend, request, role=role)
        if outcome.result is None:
            return Structured(None, raw, f"model call failed: {outcome.error}", attempt)
        raw = outcome.result.content
        try:
            return Structured(parse(raw), raw, None, attempt)
        except Unusable as exc:
            problem = str(exc)
        request = request.model_copy(
            update={
                "messages": request.messages
                + (
                    Message(role="assistant", content=raw),
                    Message(role="user", content=REASK.format(problem=problem)),
                )
            }
        )
    return Structured(None, raw, problem, reasks + 1)
