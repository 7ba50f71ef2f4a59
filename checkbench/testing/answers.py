"""What the fake OpenAI server answers: chat-completion bodies and the answer functions it is
given (a request's JSON body and headers in, a `Reply` or an `(status, body[, delay_s])` out)."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

ANSWER = "An instant answer."
"""The instant answer's sentence (`instant_answer`), for benches that build requests by hand."""


@dataclass
class Reply:
    """One reply: its status, body (a dict or list is sent as JSON, bytes as a JSON-typed body
    left as it is, a str as text), extra headers, a wait before it, or a hang-up instead."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    hang_up: bool = False


Answer = Reply | tuple[int, Any] | tuple[int, Any, float]
"""What an answer function returns: a Reply, or (HTTP status, body[, seconds to wait])."""


def as_reply(answer: Answer) -> Reply:
    """The Reply an answer function's result stands for."""
    if isinstance(answer, Reply):
        return answer
    status, body, *delay = answer
    return Reply(status=status, body=body, delay_s=delay[0] if delay else 0.0)


def completion(
    content: str = "canned answer", prompt_tokens: int = 7, completion_tokens: int = 3
) -> dict:
    """A chat.completion body."""
    return {
        "id": "stub",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


CANNED = Reply(body=completion())
"""The same canned completion for every request."""


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks its answer to follow (json_schema or json_object form)."""
    form = body.get("response_format") or {}
    return (form.get("json_schema") or {}).get("schema") or form.get("schema")


def verdicts(body: dict[str, Any], verdict: str = "yes") -> str:
    """A checklist-judge answer meeting (or not) every check the request's schema names."""
    schema = schema_of(body) or {}
    return json.dumps({c: {"reason": "r", "verdict": verdict} for c in schema["properties"]})


def default_answer(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """Candidates get a canned answer; judges meet every check."""
    if "response_format" in body:
        return 200, completion(verdicts(body))
    return 200, completion("an answer")


def _digest(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest(), 16)


def deterministic(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """Answers that depend on the request only: a candidate's on its model and prompt; a
    judge's verdicts on the response judged, some yes and some no, and for some responses an
    unusable reply (a re-ask, then unscored)."""
    prompt = json.dumps(body["messages"])
    if "response_format" not in body:
        return 200, completion(f"{body['model']} answers #{_digest(prompt) % 9973}")
    schema = body["response_format"].get("json_schema", {}).get("schema") or {}
    asked = list(itertools.takewhile(lambda m: m["role"] != "assistant", body["messages"]))
    if _digest(json.dumps(asked)) % 5 == 0:  # re-asks too (they append): left unscored
        return 200, completion("not json")
    verdicts = {
        check: {"reason": f"r{_digest(prompt, check) % 7}", "verdict": "yes"}
        if _digest(prompt, check) % 2
        else {"reason": "missing", "verdict": "no"}
        for check in schema["properties"]
    }
    return 200, completion(json.dumps(verdicts))


def echo_answer(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """Judges meet every check; candidates repeat the last user message, with as many
    completion tokens as it has words."""
    if "response_format" in body:
        return 200, completion(verdicts(body))
    question = body["messages"][-1]["content"]
    return 200, completion(f"answer to: {question}", completion_tokens=len(question.split()))


def smallest_instance(schema: dict[str, Any]) -> Any:
    """The smallest value `schema` (as checkbench sends it: inlined, every property required)
    accepts: the first choice, empty strings, minimal lists."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return smallest_instance(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "object":
        return {name: smallest_instance(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [
            smallest_instance(schema.get("items", {})) for _ in range(schema.get("minItems", 0))
        ]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return True
    return "x" * schema.get("minLength", 0)


PREFERRED = ("yes", "none", "negative")
"""The choices a useful instance picks when offered, so the build's stages keep what they see."""


def useful_instance(schema: dict[str, Any], path: str = "answer") -> Any:
    """A value that satisfies `schema` and that the build's stages can use: objects with every
    property, lists at their minimum length (at least one), strings that name their path (so
    list entries are distinct), numbers 1, a PREFERRED choice when offered, else the first."""
    if "anyOf" in schema:
        return useful_instance(next(s for s in schema["anyOf"] if s.get("type") != "null"), path)
    if "enum" in schema:
        return next((v for v in PREFERRED if v in schema["enum"]), schema["enum"][0])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: useful_instance(sub, f"{path}.{key}") for key, sub in properties.items()}
    if kind == "array":
        count = max(schema.get("minItems", 1), 1)
        return [useful_instance(schema["items"], f"{path}[{i}]") for i in range(count)]
    if kind == "string":
        text = f"{path} (instant)".ljust(schema.get("minLength", 0), ".")
        return text[: schema.get("maxLength", len(text))]
    if kind in ("number", "integer"):
        return 1
    return True if kind == "boolean" else None


def priced(body: dict[str, Any], content: str) -> dict:
    """A chat completion carrying `content`, echoing the model, with rough token counts (a
    quarter of the characters) and their total."""
    prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1
    answer = len(content) // 4 + 1
    reply = completion(content, prompt, answer)
    reply["model"] = body.get("model", "instant")
    reply["usage"]["total_tokens"] = prompt + answer
    return reply


def instant_answer(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """ANSWER, or the smallest instance of the request's schema: what costs the server least."""
    schema = schema_of(body)
    return 200, priced(body, json.dumps(smallest_instance(schema)) if schema else ANSWER)


def schema_answer(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """ANSWER, or a useful instance of the request's schema (the build's stages go on)."""
    schema = schema_of(body)
    content = json.dumps(useful_instance(schema), ensure_ascii=False) if schema else ANSWER
    return 200, priced(body, content)


ANSWERS = {
    "default": default_answer,
    "canned": lambda _body, _headers: CANNED,
    "instant": instant_answer,
    "schema": schema_answer,
}
"""The answer functions a server in another process can be started with, by name."""
