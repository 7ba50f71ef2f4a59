"""A model as the steps use it: a backend with the Caller its calls go through (cache, limits,
retries, accounting), asked for text or for a typed answer with bounded re-asks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.schema import Message
from checkbench.steps.answers import Answer, Unusable, answer_schema, parse_answer
from checkbench.steps.caller import Caller, CallOutcome

A = TypeVar("A", bound=Answer)

REASK = (
    "That answer could not be used: {problem}. Reply again with only the JSON object that the "
    "instructions ask for."
)


@dataclass(frozen=True)
class Structured(Generic[A]):
    """The parsed answer (None if nothing was usable), the last raw reply, the last problem and
    the number of calls it took."""

    value: A | None
    raw: str | None
    problem: str | None
    attempts: int


@dataclass(frozen=True)
class StepModel:
    """One backend and the Caller every call to it goes through; a `fresh` model bypasses the
    cache (a rerun re-asking what was left unscored)."""

    backend: ChatBackend
    caller: Caller
    fresh: bool = False

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def max_concurrency(self) -> int:
        return self.backend.max_concurrency

    async def call(self, request: ChatRequest, *, role: str) -> CallOutcome:
        """One call, answered from the store when an identical request succeeded before."""
        return await self.caller.call(self.backend, request, role=role, fresh=self.fresh)

    async def ask(
        self, request: ChatRequest, answer: type[A], *, role: str, reasks: int = 2
    ) -> Structured[A]:
        """Ask for an `answer`, whose schema goes with the request; an unusable reply is shown
        its problem and asked again, up to `reasks` times.

        Each re-ask is a new request (the bad reply plus the problem appended), so it is cached
        and resumable like any other call. A failed call ends the attempts at once.
        """
        request = request.model_copy(update={"json_schema": answer_schema(answer)})
        raw: str | None = None
        problem: str | None = None
        for attempt in range(1, reasks + 2):
            outcome = await self.call(request, role=role)
            if outcome.result is None:
                return Structured(None, raw, f"model call failed: {outcome.error}", attempt)
            raw = outcome.result.content
            try:
                return Structured(parse_answer(raw, answer), raw, None, attempt)
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
