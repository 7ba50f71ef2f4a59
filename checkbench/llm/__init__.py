"""Model access: resolve a model spec (an alias of the models file, `local[:FILE]`,
`openai:NAME` or `openai:NAME@URL`) into a backend behind one async chat interface."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from checkbench.errors import InputError
from checkbench.llm.base import (
    MAX_ANSWER_BYTES,
    ChatBackend,
    ChatRequest,
    ChatResult,
    LLMError,
    TokenLogprob,
)
from checkbench.llm.batch import BatchBackend, BatchSettings
from checkbench.llm.batch_client import BatchClient
from checkbench.llm.models_file import ModelEntry, Sampling, find_models_file
from checkbench.llm.models_file import load_models_file as _load_models_file
from checkbench.llm.openai_compat import JsonMode, OpenAIBackend
from checkbench.llm.retry import DEFAULT_DEADLINE_S

__all__ = [
    "ChatBackend",
    "ChatRequest",
    "ChatResult",
    "JsonMode",
    "LLMError",
    "ModelOptions",
    "ModelSpec",
    "Sampling",
    "TokenLogprob",
    "backend_name",
    "open_backend",
    "parse_model_spec",
]

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_RETRIES = 5
DEFAULT_TIMEOUT_S = 600.0
SPEC_FORMS = "an alias of the models file, 'local', 'local:/path/to/model.gguf', 'openai:MODEL' or "
SPEC_FORMS += "'openai:MODEL@http://host:port/v1'"


@dataclass(frozen=True)
class ModelOptions:
    """Command-wide settings; a models-file entry's own fields win over them. The key is named
    here and read from the environment."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    """Calls in flight per endpoint to start with (an adaptive limit: cut on overload)."""
    max_concurrency: int | None = None
    """How high the adaptive limit may grow (None: no higher than `concurrency`)."""
    json_mode: JsonMode = "schema"
    timeout_s: float | None = None
    context_length: int | None = None
    retries: int | None = None
    models_file: str | Path | None = None
    """The models file; None reads ./checkbench.toml when there is one."""
    batch: bool = False
    """Ask HTTP models through their provider's Batch API (see `llm.batch`)."""
    batch_poll_s: float = BatchSettings.poll_s
    """Seconds between status checks of a submitted batch."""
    max_answer_bytes: int = MAX_ANSWER_BYTES
    """The longest answer text (UTF-8 bytes) a model may give: a longer one is a failed call."""
    deadline_s: float = DEFAULT_DEADLINE_S
    """Seconds one call may take over all its attempts and waits: past it the call fails."""


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: a GGUF file run in-process, or a model behind an OpenAI-compatible
    endpoint, with its settings. `name` shows it in tables and reports (the alias when it has
    one); `identity` (endpoint and sampling included) keys the cache and the store."""

    kind: Literal["local", "openai"]
    target: str
    """The GGUF file's path (local) or the endpoint's model id (openai)."""
    alias: str | None = None
    base_url: str | None = None
    """The endpoint given by the spec itself (inline form or models file)."""
    inline: bool = False
    entry: ModelEntry = field(default_factory=ModelEntry)

    @property
    def name(self) -> str:
        if self.alias:
            return self.alias
        if self.kind == "local":
            return f"local:{Path(self.target).stem}"
        return f"openai:{self.target}@{self.base_url}" if self.inline else f"openai:{self.target}"

    def endpoint(self, options: ModelOptions) -> str | None:
        """The base URL this model is reached at, the first of its replicas' when it has
        several (None for the embedded backend)."""
        if self.kind == "local":
            return None
        if self.entry.base_urls:
            return self.entry.base_urls[0].rstrip("/")
        if self.base_url:
            return self.base_url.rstrip("/")
        url = options.base_url or os.environ.get("OPENAI_BASE_URL")
        if url:
            http_url(url, "--base-url" if options.base_url else "$OPENAI_BASE_URL")
        return (url or DEFAULT_OPENAI_URL).rstrip("/")

    def endpoints(self, options: ModelOptions) -> list[str]:
        """Every base URL serving this model: its replicas, or its one endpoint."""
        if self.entry.base_urls:
            return [url.rstrip("/") for url in self.entry.base_urls]
        return [self.endpoint(options) or DEFAULT_OPENAI_URL]

    def identity(self, options: ModelOptions) -> str:
        """What makes two answers comparable: kind, model, endpoint and default sampling. The
        replicas of a models-file entry stand for one endpoint named after the alias, so the
        identity stays whichever replicas serve it and whichever one answers. An entry's
        `endpoint_name` stands for its endpoint, wherever the server is reached."""
        model = Path(self.target).stem if self.kind == "local" else self.target
        named = f"endpoint {self.entry.endpoint_name}" if self.entry.endpoint_name else None
        replicas = f"replicas of {self.alias}" if self.entry.base_urls else None
        payload = {
            "kind": self.kind,
            "model": model,
            "endpoint": named or replicas or self.endpoint(options),
            "sampling": self.entry.sampling().model_dump(exclude_none=True),
        }
        return json.dumps(payload, sort_keys=True, separators=(",", ":"))


def http_url(url: str, where: str) -> str:
    """`url`, refused in one line unless it is http(s) with a host (as the models file
    requires): a doomed endpoint fails before any run directory is made."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"{url!r} is not an http:// or https:// URL with a host, e.g. http://localhost:8000/v1",
            field=where,
        )
    return url


def _split_inline(rest: str) -> tuple[str, str | None]:
    """`NAME@http://host/v1` -> (NAME, URL); a bare NAME has no URL."""
    for scheme in ("@http://", "@https://"):
        if scheme in rest:
            name, _, url = rest.partition(scheme)
            return name, scheme[1:] + url.rstrip("/")
    return rest, None


def _models(options: ModelOptions) -> dict[str, ModelEntry]:
    path = find_models_file(options.models_file)
    return _load_models_file(path) if path is not None else {}


def _from_entry(alias: str, entry: ModelEntry) -> ModelSpec:
    if entry.provider == "local":
        from checkbench.llm.llamacpp import default_gguf

        target = str(Path(entry.model).expanduser()) if entry.model else str(default_gguf())
        return ModelSpec("local", target, alias=alias, entry=entry)
    if entry.model is None:
        raise InputError(f"model '{alias}' names no model id", field=f"models.{alias}.model")
    return ModelSpec("openai", entry.model, alias=alias, base_url=entry.base_url, entry=entry)


def parse_model_spec(spec: str, options: ModelOptions | None = None) -> ModelSpec:
    """The model a spec names (see SPEC_FORMS); nothing opened."""
    entries = _models(options or ModelOptions())
    if spec in entries:
        return _from_entry(spec, entries[spec])
    kind, _, rest = spec.partition(":")
    if kind == "local":
        from checkbench.llm.llamacpp import default_gguf

        return ModelSpec("local", str(Path(rest).expanduser() if rest else default_gguf()))
    if kind == "openai" and rest:
        name, url = _split_inline(rest)
        if name:
            return ModelSpec("openai", name, base_url=url, inline=url is not None)
    known = f" (models file: {', '.join(entries)})" if entries else ""
    raise InputError(f"unknown model '{spec}': use {SPEC_FORMS}{known}", field="model")


def backend_name(spec: str, options: ModelOptions | None = None) -> str:
    """The name the backend for `spec` reports, without opening it."""
    return parse_model_spec(spec, options).name


def open_backend(spec: str, options: ModelOptions | None = None) -> ChatBackend:
    """A backend for any model spec (see SPEC_FORMS), its answers bounded by the options'
    `max_answer_bytes` (read by the caller that records its calls)."""
    options = options or ModelOptions()
    backend = _open_backend(spec, options)
    entry = parse_model_spec(spec, options).entry
    bound = entry.max_answer_bytes or options.max_answer_bytes
    backend.max_answer_bytes = bound  # type: ignore[attr-defined]
    backend.deadline_s = entry.deadline or options.deadline_s  # type: ignore[attr-defined]
    if entry.base_urls:  # replicas: the run keeps them, to tell another server from a new one
        backend.replica_urls = [url.rstrip("/") for url in entry.base_urls]  # type: ignore[attr-defined]
    return backend


def _open_backend(spec: str, options: ModelOptions) -> ChatBackend:
    model = parse_model_spec(spec, options)
    entry = model.entry
    retries = entry.retries if entry.retries is not None else options.retries
    if model.kind == "local":
        from checkbench.llm.llamacpp import LlamaCppBackend

        return LlamaCppBackend(
            Path(model.target),
            name=model.name,
            identity=model.identity(options),
            sampling=entry.sampling(),
            retries=retries,
            price=entry.price,
        )
    base_url = model.endpoint(options) or DEFAULT_OPENAI_URL
    api_key_env = entry.api_key_env or options.api_key_env
    timeout_s = entry.timeout or options.timeout_s or DEFAULT_TIMEOUT_S
    http = OpenAIBackend(
        model.target,
        name=model.name,
        identity=model.identity(options),
        base_url=model.endpoints(options),
        api_key_env=api_key_env,
        concurrency=entry.concurrency or options.concurrency,
        max_concurrency=entry.max_concurrency or options.max_concurrency,
        timeout_s=timeout_s,
        json_mode=entry.json_mode or options.json_mode,
        context_length=entry.context_length or options.context_length,
        sampling=entry.sampling(),
        retries=retries,
        price=entry.price,
    )
    if not (options.batch if entry.batch is None else entry.batch):
        return http
    client = BatchClient(base_url, api_key_env=api_key_env, timeout_s=timeout_s)
    poll_s = options.batch_poll_s
    settings = BatchSettings(poll_s=poll_s, idle_s=min(BatchSettings.idle_s, poll_s))
    return BatchBackend(http, client, settings)
