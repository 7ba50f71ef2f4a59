"""Building blocks of the SCAN pipelines' model steps: a versioned prompt rendered into a request
with a tight JSON schema, and parsing helpers that raise Unusable so `ask_structured` re-asks.

The schema helpers keep every answer bounded: strings carry maxLength, arrays maxItems,
choices are enums, and objects require all their properties and allow no others, so a small
model under a grammar cannot ramble until max_tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.prompts import fence, load_prompt
from checkbench.schema import Item, Message
from checkbench.steps.ask import Structured, Unusable, ask_structured, extract_json
from checkbench.steps.caller import Caller

Schema = dict[str, Any]
T = TypeVar("T")


def text(max_chars: int) -> Schema:
    """A bounded free-text string."""
    return {"type": "string", "maxLength": max_chars}


def choice(options: Sequence[Any]) -> Schema:
    """One value out of a fixed list."""
    return {"enum": list(options)}


def strict_object(properties: Mapping[str, Schema]) -> Schema:
    """An object with exactly these properties, all required, in this order."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


def bounded_array(items: Schema, *, max_items: int, min_items: int = 0) -> Schema:
    """A list of at most `max_items` entries."""
    return {"type": "array", "items": items, "minItems": min_items, "maxItems": max_items}


def json_object(raw: str) -> dict[str, Any]:
    """The JSON object in an answer; Unusable when there is none."""
    data = extract_json(raw)
    if not isinstance(data, dict):
        raise Unusable("expected a JSON object")
    return data


def field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """A required property of the expected type; Unusable otherwise (bool is not an int)."""
    value = data.get(name)
    if value is None or not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Unusable(f"'{name}' is missing or not of type {getattr(kind, '__name__', kind)}")
    return value


def query_text(item: Item, max_chars: int) -> str:
    """The user turn an item asks to answer, cut to `max_chars` to bound the prompt."""
    content = item.messages[-1].content
    return content if len(content) <= max_chars else content[:max_chars] + " [...]"


def fenced_list(label: str, lines: Sequence[str]) -> str:
    """Model-made or user-made lines (names, descriptions) as one fenced block."""
    return fence(label, "\n".join(lines) if lines else "(none)")


def prompt_request(
    prompt_name: str,
    values: Mapping[str, str],
    *,
    schema: Schema,
    max_tokens: int,
    temperature: float = 0.0,
    seed: int | None = None,
) -> ChatRequest:
    """The request for one step: the prompt's system part, its rendered user part, a schema."""
    prompt = load_prompt(prompt_name)
    return ChatRequest(
        messages=(
            Message(role="system", content=prompt.system),
            Message(role="user", content=prompt.render(**values)),
        ),
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        json_schema=schema,
    )


def failed_outcome(answer: Structured[Any]) -> dict[str, Any]:
    """The record fields of a step whose answer stayed unusable: why, and what the model said."""
    return {"outcome": "failed", "problem": answer.problem, "raw": answer.raw}


def prompt_tag(prompt_name: str) -> str:
    """name@version of a prompt, recorded beside what it produced."""
    return load_prompt(prompt_name).tag


@dataclass(frozen=True)
class Asker:
    """`ask_structured` bound to one model, the role its calls are counted under and the number
    of re-asks an unusable answer gets."""

    caller: Caller
    backend: ChatBackend
    role: str
    reasks: int

    async def __call__(self, request: ChatRequest, parse: Callable[[str], T]) -> Structured[T]:
        return await ask_structured(
            self.caller, self.backend, request, parse, role=self.role, reasks=self.reasks
        )
