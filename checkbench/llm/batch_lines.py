"""The lines of a batch: requests out, one per custom id, and outcomes back, matched by it."""

from __future__ import annotations

import json
from typing import Any

from checkbench.llm.base import ChatResult, LLMError
from checkbench.llm.batch_client import CHAT_ENDPOINT, BatchStatus
from checkbench.llm.openai_compat import parse_completion

Outcome = ChatResult | LLMError
"""What one request of a batch came to: its answer, or why it has none."""


def request_line(custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """One line of the uploaded file: a chat completion keyed by `custom_id`."""
    return {"custom_id": custom_id, "method": "POST", "url": CHAT_ENDPOINT, "body": body}


def _outcome(batch_id: str, line: dict[str, Any]) -> Outcome:
    response = line.get("response") or {}
    error = line.get("error")
    status = response.get("status_code")
    if status == 200 and not error:
        try:
            result = parse_completion(response.get("body"))
        except LLMError as exc:
            return LLMError(f"batch {batch_id}: {exc}", retryable=False)
        return result.model_copy(update={"batched": True})
    if error:
        detail = f"{error.get('code')}: {error.get('message')}"
    else:
        detail = f"HTTP {status}: {json.dumps(response.get('body'), ensure_ascii=False)[:300]}"
    return LLMError(f"batch {batch_id}: {detail}", retryable=False)


def read_outcomes(batch_id: str, *files: str) -> dict[str, Outcome]:
    """The outcome of every request that the output and error files name; a line that names
    no request cannot be matched and is passed over (its request ends without a result)."""
    outcomes: dict[str, Outcome] = {}
    for text in files:
        for raw in text.splitlines():
            try:
                line = json.loads(raw)
                custom_id = line["custom_id"]
                outcomes[str(custom_id)] = _outcome(batch_id, line)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
    return outcomes


def no_result(batch: BatchStatus) -> LLMError:
    """The error of a request that a finished batch returned nothing for."""
    why = f" ({batch.problem})" if batch.problem else ""
    return LLMError(f"batch {batch.id} {batch.status} with no result{why}", retryable=False)
