"""The OpenAI-compatible Batch API over HTTP: upload a JSONL of requests, create a batch, read
its status, download its output and error files. Transient failures are retried here; the key
is read from the environment and never kept anywhere but in the request headers."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checkbench.llm.base import LLMError
from checkbench.llm.openai_compat import parse_retry_after
from checkbench.llm.retry import RetryPolicy, with_retries
from checkbench.redact import register_secret

if TYPE_CHECKING:
    import aiohttp

CHAT_ENDPOINT = "/v1/chat/completions"
FINISHED = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch statuses after which nothing changes any more."""


@dataclass(frozen=True)
class BatchStatus:
    """Where a submitted batch stands, with its result files once it has them."""

    id: str
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None
    problem: str | None = None
    """The first batch-level error the provider gives (a batch that failed validation)."""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


def _status(body: Any) -> BatchStatus:
    try:
        errors = (body.get("errors") or {}).get("data") or []
        problem = errors[0].get("message") if errors else None
        return BatchStatus(
            id=str(body["id"]),
            status=str(body["status"]),
            output_file_id=body.get("output_file_id"),
            error_file_id=body.get("error_file_id"),
            problem=problem,
        )
    except (AttributeError, KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"malformed batch object: {exc!r}", retryable=False) from None


class BatchClient:
    """The files and batches endpoints of one provider."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 600.0,
        policy: RetryPolicy | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._headers: dict[str, str] = {}
        key = os.environ.get(api_key_env)
        if key:
            register_secret(key)
            self._headers["Authorization"] = f"Bearer {key}"
        self._timeout_s = timeout_s
        self._policy = policy or RetryPolicy()
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        """The HTTP session, created inside the running event loop on first use."""
        import aiohttp  # deferred: ~0.5 s of CLI start-up, needed once a call is made

        if self._session is None:
            timeout = aiohttp.ClientTimeout(total=self._timeout_s)
            self._session = aiohttp.ClientSession(headers=self._headers, timeout=timeout)
        return self._session

    async def _call(
        self,
        method: str,
        path: str,
        *,
        payload: dict[str, Any] | None = None,
        upload: bytes | None = None,
    ) -> bytes:
        """One endpoint call, retried while it fails transiently; the body of its answer."""

        import aiohttp  # deferred: ~0.5 s of CLI start-up, needed once a call is made

        async def once() -> bytes:
            data: aiohttp.FormData | None = None
            if upload is not None:  # a form is consumed by its request: one per attempt
                data = aiohttp.FormData()
                data.add_field("purpose", "batch")
                data.add_field(
                    "file", upload, filename="requests.jsonl", content_type="application/jsonl"
                )
            url = self._base_url + path
            try:
                async with self._open().request(method, url, json=payload, data=data) as reply:
                    body = await reply.read()
                    status, retry_after = reply.status, reply.headers.get("Retry-After")
            except TimeoutError:
                raise LLMError(f"{method} {path}: timeout", retryable=True, timeout=True) from None
            except aiohttp.ClientError as exc:
                message = f"{method} {path}: connection error: {exc or repr(exc)}"
                raise LLMError(message, retryable=True) from None
            if status < 400:
                return body
            detail = body[:300].decode("utf-8", "replace")
            raise LLMError(
                f"{method} {path}: HTTP {status}: {detail}",
                retryable=status == 429 or status >= 500,
                retry_after=parse_retry_after(retry_after),
            )

        return await with_retries(once, self._policy)

    async def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        body = await self._call(method, path, **kwargs)
        try:
            return json.loads(body)
        except ValueError:
            raise LLMError(f"{method} {path}: answer is not JSON", retryable=False) from None

    async def submit(self, lines: list[dict[str, Any]]) -> str:
        """Upload the request lines as one file and start a batch on it; the batch id."""
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        uploaded = await self._json("POST", "/files", upload=text.encode("utf-8"))
        try:
            file_id = uploaded["id"]
        except (KeyError, TypeError):
            raise LLMError("POST /files: answer names no file id", retryable=False) from None
        created = await self._json(
            "POST",
            "/batches",
            payload={
                "input_file_id": file_id,
                "endpoint": CHAT_ENDPOINT,
                "completion_window": "24h",
            },
        )
        return _status(created).id

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch as the provider sees it now."""
        return _status(await self._json("GET", f"/batches/{batch_id}"))

    async def content(self, file_id: str) -> str:
        """A result file's JSONL text."""
        body = await self._call("GET", f"/files/{file_id}/content")
        return body.decode("utf-8", "replace")

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
