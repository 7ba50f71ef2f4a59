"""One async chat interface shared by every backend."""

from __future__ import annotations

import functools
import hashlib
import json
import math
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import PydanticSerializationError, to_json

from checkbench.llm.models_file import Price, Sampling
from checkbench.schema import Message


class ChatRequest(BaseModel):
    """What checkbench asks a model; its hash keys the request cache."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: tuple[Message, ...]
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = None
    top_p: float | None = None
    sample: int = Field(default=0, ge=0)
    """Which of several samples of the same request this is: part of the cache key, never sent."""
    json_schema: dict[str, Any] | None = None
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    stop: tuple[str, ...] = ()

    def sampling_params(self) -> dict[str, Any]:
        """The OpenAI-style parameters every backend sends (JSON output is backend-specific)."""
        params: dict[str, Any] = {
            "messages": [dict(m.__dict__) for m in self.messages],  # the fields, undumped
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            params["seed"] = self.seed
        if self.top_p is not None:
            params["top_p"] = self.top_p
        if self.stop:
            params["stop"] = list(self.stop)
        if self.top_logprobs is not None:
            params["logprobs"] = True
            params["top_logprobs"] = self.top_logprobs
        return params

    @property
    def deterministic(self) -> bool:
        """Greedy or seeded: asking again should give the same answer."""
        return self.temperature == 0 or self.seed is not None

    def cache_key(self, model: str) -> str:
        """Stable hash of the model identity, parameters, sample index and messages: of their
        canonical JSON (keys sorted, no blanks). "json_schema" sorts first, so its text
        (encoded once per schema) goes in front of the rest's, which is encoded from the
        fields as they are (no dump of the model first)."""
        fields = {name: value for name, value in self.__dict__.items() if name != "json_schema"}
        fields["model"] = model
        fields["messages"] = [{"content": m.content, "role": m.role} for m in self.messages]
        rest = _fast_json({name: fields[name] for name in sorted(fields)}, _CANONICAL)
        blob = f'{{"json_schema":{_schema_json(self.json_schema)},{rest[1:]}'
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def compact(self) -> tuple[str, dict[str, str]]:
        """The request as the run store keeps it: its JSON with the texts that many requests
        share (system instructions, the answer's schema as canonical JSON) replaced by
        `sha256:` digests of them, and those texts by digest, to be kept once; the optional
        parameters left unset are left out."""
        shared: dict[str, str] = {}

        def digest(text: str) -> str:
            name = _digest(text)
            shared[name] = text
            return name

        fields = {
            k: v
            for k, v in self.__dict__.items()
            if k not in ("messages", "json_schema") and not (k in _UNSET and v == _UNSET[k])
        }
        fields["messages"] = [
            {"role": m.role, "shared": digest(m.content)}
            if m.role == "system"
            else {"role": m.role, "content": m.content}
            for m in self.messages
        ]
        if self.json_schema is not None:
            fields["json_schema"] = digest(_schema_json(self.json_schema))
        return _fast_json(fields, _COMPACT), shared


_UNSET: dict[str, Any] = {
    "seed": None,
    "top_p": None,
    "top_logprobs": None,
    "stop": (),
    "sample": 0,
}
"""Optional parameters at their unset values, which a compact request leaves out."""


@functools.lru_cache(maxsize=256)
def _digest(text: str) -> str:
    """The name a shared text is kept under; memoized, as the same few texts (instructions,
    schemas) come with every request."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _fast_json(fields: dict[str, Any], encoder: json.JSONEncoder) -> str:
    """`encoder.encode(fields)` for a request's fields (plain values, keys in the order the
    encoder writes them), written by pydantic's encoder, which takes a third of the time: both
    write the same text (strings unescaped but for quotes, backslashes and control characters;
    ints; floats without an exponent); other floats and texts it cannot write go to `encoder`."""
    if any(isinstance(v, float) and not _plain_float(v) for v in fields.values()):
        return encoder.encode(fields)
    try:
        return to_json(fields).decode()
    except PydanticSerializationError:
        return encoder.encode(fields)


def _plain_float(value: float) -> bool:
    """Whether json.dumps writes `value` without an exponent (the form both encoders share)."""
    return math.isfinite(value) and "e" not in float.__repr__(value)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no blanks: the same value always gives the same text."""
    return _CANONICAL.encode(value)


_SCHEMAS: dict[int, tuple[dict[str, Any], str]] = {}
"""Canonical JSON of the schemas requests carry, by object: an answer's schema is built once
and sent with every request for it, so it is encoded once (the entry holds the schema, so its
id is not reused while cached). Schemas are never changed once sent."""
_SCHEMAS_KEPT = 256


def _schema_json(schema: dict[str, Any] | None) -> str:
    if schema is None:
        return "null"
    found = _SCHEMAS.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    if len(_SCHEMAS) >= _SCHEMAS_KEPT:
        _SCHEMAS.clear()
    encoded = canonical_json(schema)
    _SCHEMAS[id(schema)] = (schema, encoded)
    return encoded


class TokenLogprob(BaseModel):
    """Log-probabilities at one generated position: the chosen token and the top alternatives."""

    token: str
    logprob: float
    top: dict[str, float] = Field(default_factory=dict)


MAX_ANSWER_BYTES = 4 * 1024 * 1024
"""The default bound on one answer's text (UTF-8 bytes, `ModelOptions.max_answer_bytes`): a
longer answer is a failed call, recorded with its reason and counted, never stored."""


class ChatResult(BaseModel):
    """A model's answer with its token usage."""

    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    logprobs: list[TokenLogprob] | None = None
    batched: bool = False
    """Answered through a provider's Batch API (billed at its batch price)."""


class LLMError(Exception):
    """A failed model call; `retryable` says whether backing off and retrying may help."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        timeout: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.timeout = timeout


class ChatBackend(Protocol):
    """A model that answers chat requests. `name` shows it in the store and reports;
    `identity` (endpoint and default sampling included) keys the cache; `retries` (None: the
    caller's default) bounds retried attempts."""

    name: str
    identity: str
    retries: int | None
    max_concurrency: int
    context_length: int | None

    async def chat(self, request: ChatRequest) -> ChatResult: ...

    async def count_tokens(self, messages: tuple[Message, ...]) -> int | None:
        """Prompt tokens of these messages, or None when the backend cannot tell."""
        ...

    async def aclose(self) -> None: ...


def backend_identity(backend: ChatBackend) -> str:
    """The identity keying a backend's cache entries (its name for backends without one)."""
    return getattr(backend, "identity", None) or backend.name


def backend_sampling(backend: ChatBackend) -> Sampling:
    """A backend's default sampling (none for backends without one)."""
    return getattr(backend, "sampling", None) or Sampling()


def backend_price(backend: ChatBackend) -> Price | None:
    """What a backend's calls cost, as its models-file entry says (None: not priced)."""
    return getattr(backend, "price", None)
