"""Requests from versioned prompts, and the text helpers the model steps show data with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from checkbench.llm.base import ChatRequest
from checkbench.prompts import fence, load_prompt
from checkbench.schema import Item, Message
from checkbench.steps.model import Structured


def prompt_request(
    prompt_name: str,
    values: Mapping[str, str],
    *,
    max_tokens: int,
    temperature: float = 0.0,
    seed: int | None = None,
    top_logprobs: int | None = None,
) -> ChatRequest:
    """The request for one step: the prompt's system part, then its user part rendered with
    `values` (a typed answer's schema is added by `StepModel.ask`)."""
    prompt = load_prompt(prompt_name)
    return ChatRequest(
        messages=(
            Message(role="system", content=prompt.system),
            Message(role="user", content=prompt.render(**values)),
        ),
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        top_logprobs=top_logprobs,
    )


def prompt_tag(prompt_name: str) -> str:
    """name@version of a prompt, recorded beside what it produced."""
    return load_prompt(prompt_name).tag


def clip(text: str, chars: int) -> str:
    """At most `chars` characters of `text`, saying how much was left out."""
    if len(text) <= chars:
        return text
    return f"{text[:chars]}\n[... {len(text) - chars} more characters not shown]"


def query_text(item: Item, max_chars: int) -> str:
    """The user turn an item asks to answer, clipped to bound the prompt."""
    return clip(item.messages[-1].content, max_chars)


def fenced_list(label: str, lines: Sequence[str]) -> str:
    """Model-made or user-made lines (names, descriptions) as one fenced block."""
    return fence(label, "\n".join(lines) if lines else "(none)")


def failed_outcome(answer: Structured[Any]) -> dict[str, Any]:
    """The record fields of a step whose answer stayed unusable: why, and what the model said."""
    return {"outcome": "failed", "problem": answer.problem, "raw": answer.raw}
