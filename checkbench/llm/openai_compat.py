"""Backend for any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, llama.cpp, Ollama)."""

from __future__ import annotations

import email.utils
import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic_core import PydanticSerializationError, from_json, to_json

from checkbench.errors import InputError
from checkbench.llm.base import MAX_ANSWER_BYTES, ChatRequest, ChatResult, LLMError, TokenLogprob
from checkbench.llm.models_file import Price, Sampling
from checkbench.llm.replicas import Replicas, Slot
from checkbench.redact import redact, register_secret
from checkbench.schema import Message

if TYPE_CHECKING:
    import aiohttp

JsonMode = Literal["schema", "object"]
_ENVELOPE_BYTES = 64 * 1024
"""What a completion body may hold beyond its answer (ids, usage, log-probs of a short answer)."""
_SCHEMA_REJECTED = {400, 415, 422}
"""Statuses by which an endpoint refuses json_schema: the request is then retried once as
json_object with the schema, and when that succeeds the endpoint is asked that way from then
on. A 5xx is a failure of the server, not a refusal, unless its body is a validation error
naming response_format and json_schema (llama_cpp.server answers 500 so)."""
_ENDPOINT_JSON_MODE: dict[str, JsonMode] = {}
"""What each endpoint (base URL) was found to accept, shared by every model behind it."""
log = logging.getLogger("checkbench")


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
            content=redact(content),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=choice.get("finish_reason"),
            logprobs=_parse_logprobs(choice),
        )
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise LLMError(f"malformed completion body: {exc!r}", retryable=True) from None


def _encoded(payload: dict[str, Any]) -> bytes:
    """A request body as JSON: by pydantic's encoder, a third of json.dumps's CPU for a
    judge's request; a text it cannot write as UTF-8 (a lone surrogate) goes escaped."""
    try:
        return to_json(payload)
    except PydanticSerializationError:
        return json.dumps(payload).encode()


@dataclass(frozen=True)
class _Reply:
    status: int
    retry_after: str | None
    body: bytes


def _refuses_schema(reply: _Reply) -> bool:
    """Whether the endpoint refused json_schema itself (not: failed for another reason)."""
    if reply.status in _SCHEMA_REJECTED:
        return True
    named = b"response_format" in reply.body and b"json_schema" in reply.body
    return reply.status == 500 and named and b"validation error" in reply.body


class OpenAIBackend:
    """Chat completions over HTTP, at one endpoint or spread over its replicas (`base_url` a
    list), each under an adaptive limit that starts at `concurrency` and may grow up to
    `max_concurrency` (default: no higher). The API key is read from the environment, never
    stored."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | Sequence[str],
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        max_concurrency: int | None = None,
        timeout_s: float = 600.0,
        json_mode: JsonMode = "schema",
        name: str | None = None,
        identity: str | None = None,
        context_length: int | None = None,
        sampling: Sampling | None = None,
        retries: int | None = None,
        price: Price | None = None,
    ) -> None:
        self.model = model
        self.price = price
        self.context_length = context_length
        self.name = name or f"openai:{model}"
        urls = [base_url] if isinstance(base_url, str) else list(base_url)
        self._base_url = urls[0].rstrip("/")
        """The first endpoint: it names the model's identity and its JSON mode."""
        self.identity = identity or f"{self.name}@{self._base_url}"
        ceiling = max(max_concurrency or concurrency, concurrency)
        self._replicas = Replicas([url.rstrip("/") for url in urls], concurrency, ceiling)
        self.max_concurrency = ceiling * len(urls)
        """The most calls in flight at once, over every replica."""
        self.sampling = sampling or Sampling()
        self.retries = retries
        self._json_mode: JsonMode = json_mode
        self._headers = {"Content-Type": "application/json"}
        key = os.environ.get(api_key_env)
        if key:
            register_secret(key)
            if any(char in key for char in "\r\n\0"):
                raise InputError(
                    f"the API key in ${api_key_env} holds a line break or NUL byte, which no "
                    "HTTP header may carry: set it again without one",
                    field=api_key_env,
                )
            self._headers["Authorization"] = f"Bearer {key}"
        self._timeout_s = timeout_s
        self.max_answer_bytes = MAX_ANSWER_BYTES
        """The longest answer this endpoint may send (open_backend sets the option's)."""
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        """The HTTP session, created inside the running event loop on first use."""
        import aiohttp  # deferred: ~0.5 s of CLI start-up, needed once a call is made

        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.max_concurrency),
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=self._timeout_s),
            )
        return self._session

    def _payload(self, request: ChatRequest, json_mode: JsonMode) -> dict[str, Any]:
        payload = {"model": self.model, **request.sampling_params()}
        if request.json_schema is not None:
            payload["response_format"] = _response_format(request.json_schema, json_mode)
        return payload

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The chat.completions body this backend sends for `request` (the Batch API's too)."""
        return self._payload(request, self.json_mode)

    @property
    def concurrency_limit(self) -> int:
        """The calls the endpoint (all its replicas) is given at once now."""
        return self._replicas.limit

    async def _post(self, base_url: str, payload: dict[str, Any]) -> _Reply:
        import aiohttp  # deferred: ~0.5 s of CLI start-up, needed once a call is made

        url = f"{base_url}/chat/completions"
        try:
            async with self._open().post(url, data=_encoded(payload)) as response:
                body = await self._bounded_body(response)
                return _Reply(response.status, response.headers.get("Retry-After"), body)
        except TimeoutError:
            raise LLMError("timeout", retryable=True, timeout=True) from None
        except aiohttp.ClientError as exc:
            raise LLMError(f"connection error: {exc or repr(exc)}", retryable=True) from None

    async def _bounded_body(self, response: Any) -> bytes:
        """The reply's body, read no further than the answer bound allows: an endpoint that
        sends more fails the call (not retried: it would send as much again)."""
        limit = self.max_answer_bytes + _ENVELOPE_BYTES
        chunks, size = [], 0
        async for chunk in response.content.iter_chunked(1 << 16):
            size += len(chunk)
            if size > limit:
                raise LLMError(
                    f"response body over {limit} bytes: the answer bound is "
                    f"{self.max_answer_bytes} bytes (--max-answer-bytes)",
                    retryable=False,
                )
            chunks.append(chunk)
        return b"".join(chunks)

    @property
    def json_mode(self) -> JsonMode:
        """How this endpoint is asked for JSON: as configured, until it refused json_schema."""
        return _ENDPOINT_JSON_MODE.get(self._base_url, self._json_mode)

    async def chat(self, request: ChatRequest) -> ChatResult:
        """One completion, at the least loaded replica; raises LLMError classified for the
        retry policy. The replica's limit learns from the outcome."""
        slot = await self._replicas.acquire()
        started = time.perf_counter()
        try:
            reply = await self._ask(slot.replica.url, request)
        except LLMError as exc:
            raise self._failed(slot, exc, None) from None
        except BaseException:  # cancelled: the slot is free again
            self._replicas.ended(slot)
            raise
        try:
            result = self._result(reply)
        except LLMError as exc:
            raise self._failed(slot, exc, reply.status) from None
        self._replicas.succeeded(slot, time.perf_counter() - started)
        return result

    def _failed(self, slot: Slot, error: LLMError, status: int | None) -> LLMError:
        """Tell the replicas how a call failed (`status` None: no reply): a 429, a 5xx or a
        timeout is overload; a 5xx or a failed connection sets the replica aside. The error to
        raise: retried at once when the replica was set aside and another one is up."""
        code = status or 0
        if error.timeout or code == 429 or code >= 500:
            self._replicas.overloaded(slot)
        else:
            self._replicas.ended(slot)
        if code < 500 and (status is not None or error.timeout):
            return error
        self._replicas.set_aside(slot)
        if not self._replicas.others_up(slot.replica):
            return error
        return LLMError(str(error), retryable=error.retryable, retry_after=0.0)

    async def _ask(self, base_url: str, request: ChatRequest) -> _Reply:
        """The endpoint's reply, asked again with json_object when it refused json_schema."""
        mode = self.json_mode
        reply = await self._post(base_url, self._payload(request, mode))
        if request.json_schema is not None and mode == "schema" and _refuses_schema(reply):
            fallback = await self._post(base_url, self._payload(request, "object"))
            if fallback.status == 200:
                self._fall_back(reply)
                return fallback
        return reply

    def _fall_back(self, refusal: _Reply) -> None:
        """Ask this endpoint with json_object from now on, and say so once."""
        if _ENDPOINT_JSON_MODE.get(self._base_url) == "object":
            return
        _ENDPOINT_JSON_MODE[self._base_url] = "object"
        detail = redact(refusal.body[:160].decode("utf-8", "replace"))
        log.warning(
            "%s refused json_schema (HTTP %d: %s); asking it with json_object from now on",
            self._base_url,
            refusal.status,
            detail,
        )

    def _result(self, reply: _Reply) -> ChatResult:
        if reply.status == 200:
            try:
                body = from_json(reply.body)
            except ValueError:
                raise LLMError("completion body is not JSON", retryable=True) from None
            return parse_completion(body)
        detail = reply.body[:300].decode("utf-8", "replace")  # the Caller redacts every error
        if reply.status == 429 or reply.status >= 500:
            retry_after = parse_retry_after(reply.retry_after)
            raise LLMError(
                f"HTTP {reply.status}: {detail}", retryable=True, retry_after=retry_after
            )
        raise LLMError(f"HTTP {reply.status}: {detail}", retryable=False)

    async def count_tokens(self, messages: tuple[Message, ...]) -> int | None:
        """OpenAI-compatible servers have no standard tokenizer endpoint."""
        return None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
