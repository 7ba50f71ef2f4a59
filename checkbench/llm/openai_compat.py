"""Backend for any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, llama.cpp, Ollama)."""

from __future__ import annotations

import email.utils
import os
import time
from typing import Any, Literal

import httpx

from checkbench.llm.base import ChatRequest, ChatResult, LLMError, TokenLogprob

JsonMode = Literal["schema", "object"]
# Statuses after which a json_schema request is retried once as json_object with the schema,
# for servers (e.g. llama_cpp.server) that only understand the latter.
_SCHEMA_REJECTED = {400, 422, 500}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header given as seconds or as an HTTP date."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(parsed.timestamp() - time.time(), 0.0)


def _response_format(schema: dict[str, Any], mode: JsonMode) -> dict[str, Any]:
    if mode == "schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    return {"type": "json_object", "schema": schema}


def _parse_logprobs(choice: dict[str, Any]) -> list[TokenLogprob] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return [
        TokenLogprob(
            token=entry["token"],
            logprob=float(entry["logprob"]),
            top={alt["token"]: float(alt["logprob"]) for alt in entry.get("top_logprobs") or []},
        )
        for entry in content
    ]


def parse_completion(body: Any) -> ChatResult:
    """A ChatResult from a chat.completion body; anything malformed is a retryable error."""
    try:
        choice = body["choices"][0]
        content = choice["message"]["content"] or ""
        usage = body.get("usage") or {}
        return ChatResult(
            content=content,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=choice.get("finish_reason"),
            logprobs=_parse_logprobs(choice),
        )
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise LLMError(f"malformed completion body: {exc!r}", retryable=True) from None


class OpenAIBackend:
    """Chat completions over HTTP. The API key is read from the environment, never stored."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 8,
        timeout_s: float = 600.0,
        json_mode: JsonMode = "schema",
        name: str | None = None,
    ) -> None:
        self.model = model
        self.name = name or f"openai:{model}"
        self.max_concurrency = max_concurrency
        self.json_mode: JsonMode = json_mode
        headers = {}
        key = os.environ.get(api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=timeout_s,
            limits=httpx.Limits(max_connections=max_concurrency, max_keepalive_connections=max_concurrency),
        )

    def _payload(self, request: ChatRequest, json_mode: JsonMode) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.stop:
            payload["stop"] = list(request.stop)
        if request.json_schema is not None:
            payload["response_format"] = _response_format(request.json_schema, json_mode)
        if request.top_logprobs is not None:
            payload["logprobs"] = True
            payload["top_logprobs"] = request.top_logprobs
        return payload

    async def _post(self, payload: dict[str, Any]) -> httpx.Response:
        try:
            return await self._client.post("chat/completions", json=payload)
        except httpx.TimeoutException as exc:
            raise LLMError(f"timeout: {exc!r}", retryable=True) from None
        except httpx.TransportError as exc:
            raise LLMError(f"connection error: {exc!r}", retryable=True) from None

    async def chat(self, request: ChatRequest) -> ChatResult:
        """One completion; raises LLMError classified for the retry policy."""
        response = await self._post(self._payload(request, self.json_mode))
        if (
            request.json_schema is not None
            and self.json_mode == "schema"
            and response.status_code in _SCHEMA_REJECTED
        ):
            fallback = await self._post(self._payload(request, "object"))
            if fallback.status_code == 200:
                self.json_mode = "object"
                response = fallback
        return self._result(response)

    def _result(self, response: httpx.Response) -> ChatResult:
        status = response.status_code
        if status == 200:
            try:
                body = response.json()
            except ValueError:
                raise LLMError("completion body is not JSON", retryable=True) from None
            return parse_completion(body)
        detail = response.text[:300]
        if status == 429 or status >= 500:
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            raise LLMError(f"HTTP {status}: {detail}", retryable=True, retry_after=retry_after)
        raise LLMError(f"HTTP {status}: {detail}", retryable=False)

    async def aclose(self) -> None:
        await self._client.aclose()
