"""Model access: parse a model spec into a backend behind one async chat interface."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult, LLMError, TokenLogprob
from checkbench.llm.openai_compat import JsonMode, OpenAIBackend

__all__ = [
    "ChatBackend",
    "ChatRequest",
    "ChatResult",
    "LLMError",
    "ModelOptions",
    "TokenLogprob",
    "open_backend",
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


def open_backend(spec: str, options: ModelOptions | None = None) -> ChatBackend:
    """A backend for `local`, `local:/path/model.gguf` or `openai:MODEL`."""
    options = options or ModelOptions()
    kind, _, rest = spec.partition(":")
    if kind == "local":
        from checkbench.llm.llamacpp import LlamaCppBackend, default_gguf

        path = Path(rest).expanduser() if rest else default_gguf()
        return LlamaCppBackend(path, name=f"local:{path.stem}")
    if kind == "openai" and rest:
        base_url = options.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_URL
        return OpenAIBackend(
            rest,
            base_url=base_url,
            api_key_env=options.api_key_env,
            max_concurrency=options.concurrency,
            timeout_s=options.timeout_s,
            json_mode=options.json_mode,
            context_length=options.context_length,
        )
    raise InputError(
        f"unknown model '{spec}': use 'local', 'local:/path/to/model.gguf' or 'openai:MODEL'",
        field="model",
    )
