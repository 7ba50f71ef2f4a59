"""Model access: parse a model spec into a backend behind one async chat interface."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult, LLMError, TokenLogprob
from checkbench.llm.openai_compat import JsonMode, OpenAIBackend

__all__ = [
    "ChatBackend",
    "ChatRequest",
    "ChatResult",
    "JsonMode",
    "LLMError",
    "ModelOptions",
    "ModelSpec",
    "TokenLogprob",
    "backend_name",
    "open_backend",
    "parse_model_spec",
]

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class ModelOptions:
    """Settings for HTTP backends; the key is named here and read from the environment."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    json_mode: JsonMode = "schema"
    timeout_s: float = 600.0
    context_length: int | None = None


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec: a GGUF file run in-process, or a model behind an OpenAI-compatible
    endpoint. `name` is the backend's identity in the store and the cache."""

    kind: Literal["local", "openai"]
    target: str
    """The GGUF file's path (local) or the endpoint's model name (openai)."""

    @property
    def name(self) -> str:
        return f"{self.kind}:{Path(self.target).stem if self.kind == 'local' else self.target}"


def parse_model_spec(spec: str) -> ModelSpec:
    """`local` (the embedded model), `local:/path/model.gguf` or `openai:MODEL`; nothing opened."""
    kind, _, rest = spec.partition(":")
    if kind == "local":
        from checkbench.llm.llamacpp import default_gguf

        return ModelSpec("local", str(Path(rest).expanduser() if rest else default_gguf()))
    if kind == "openai" and rest:
        return ModelSpec("openai", rest)
    raise InputError(
        f"unknown model '{spec}': use 'local', 'local:/path/to/model.gguf' or 'openai:MODEL'",
        field="model",
    )


def backend_name(spec: str) -> str:
    """The name the backend for `spec` reports, without opening it."""
    return parse_model_spec(spec).name


def open_backend(spec: str, options: ModelOptions | None = None) -> ChatBackend:
    """A backend for `local`, `local:/path/model.gguf` or `openai:MODEL`."""
    options = options or ModelOptions()
    model = parse_model_spec(spec)
    if model.kind == "local":
        from checkbench.llm.llamacpp import LlamaCppBackend

        return LlamaCppBackend(Path(model.target), name=model.name)
    base_url = options.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_URL
    return OpenAIBackend(
        model.target,
        name=model.name,
        base_url=base_url,
        api_key_env=options.api_key_env,
        max_concurrency=options.concurrency,
        timeout_s=options.timeout_s,
        json_mode=options.json_mode,
        context_length=options.context_length,
    )
