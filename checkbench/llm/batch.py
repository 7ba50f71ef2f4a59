"""A backend that sends requests through a provider's Batch API instead of one by one.

`chat` queues its request and waits. Once the queue has been quiet for a moment (a stage sends
all its calls at once: the concurrency of this backend is the queue's, not the endpoint's) or
holds as many requests as one batch may carry, the queue goes out as one batch, which is
polled until it finishes; then every waiting call gets its answer, or the error of its line.
The answers then take the normal path of any call (cache, store, accounting).

Each request's custom id is its cache key, and every submitted batch is written to a journal
(the run store) with the ids it carries, so a command killed while its batches run picks them up
when rerun instead of submitting them again. A batch is marked finished in the journal once
its answers are handed out; a request that failed in it is then sent again by a later rerun,
like any failed call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from typing_extensions import TypedDict

from checkbench.llm.base import ChatRequest, ChatResult, LLMError
from checkbench.llm.batch_client import BatchClient, BatchStatus
from checkbench.llm.batch_lines import Outcome, no_result, read_outcomes, request_line
from checkbench.llm.openai_compat import OpenAIBackend
from checkbench.schema import Message
from checkbench.store.records import RecordKind


class BatchRecord(TypedDict, total=False):
    """What the journal keeps of one batch: {"model": identity, "state": "submitted",
    "requests": [custom ids]}, then {"model", "state": the final status, "results": lines read}."""

    model: str
    state: str
    requests: list[str]
    results: int


JOURNAL_KIND = RecordKind("batch", BatchRecord)
"""The journal's record kind: a BatchRecord by batch id."""
SUBMITTED = "submitted"
QUEUE_LIMIT = 1_000_000
"""The concurrency a batch backend offers: enough for every call of a stage to queue."""


@dataclass(frozen=True)
class BatchSettings:
    """How long to wait between status checks, how long the queue may stay quiet before it is
    sent, and how many requests one batch carries at most (OpenAI's limit)."""

    poll_s: float = 30.0
    idle_s: float = 0.5
    max_requests: int = 50_000


class BatchJournal(Protocol):
    """Where submitted batches are remembered across restarts (the run store is one)."""

    def put_record(self, kind: RecordKind[BatchRecord], key: str, value: BatchRecord) -> None: ...

    def records(self, kind: RecordKind[BatchRecord]) -> dict[str, BatchRecord]: ...

    async def durable(self) -> None:
        """Return once every record put so far is committed."""
        ...


@dataclass
class _Batch:
    """Calls waiting for one batch: being filled, submitted, or found submitted by an earlier
    run; `outcomes` once it has finished (kept for late calls of a batch found submitted)."""

    waiting: dict[str, asyncio.Future[ChatResult]] = field(default_factory=dict)
    lines: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[str, Outcome] | None = None
    end: LLMError | None = None
    """The error of every waiting call that its outcomes do not name."""


class BatchBackend:
    """`inner`'s model, asked through the Batch API. A failed request is a failed call: never
    retried within the command (the next batch would take as long again), but by a rerun."""

    retries: int | None = 0
    max_concurrency: int = QUEUE_LIMIT

    def __init__(
        self, inner: OpenAIBackend, client: BatchClient, settings: BatchSettings | None = None
    ) -> None:
        self._inner = inner
        self._client = client
        self._settings = settings or BatchSettings()
        self.name = inner.name
        self.identity = inner.identity
        self.context_length = inner.context_length
        self.sampling = inner.sampling
        self.price = inner.price
        self._journal: BatchJournal | None = None
        self._submitted: dict[str, str] = {}
        """custom id -> the batch an earlier run submitted it in, still unfinished."""
        self._found: dict[str, _Batch] = {}
        self._calls: dict[str, asyncio.Future[ChatResult]] = {}
        self._queue = _Batch()
        self._last_queued = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def use_journal(self, journal: BatchJournal) -> None:
        """Remember batches in `journal`, and pick up this model's unfinished ones from it."""
        self._journal = journal
        for batch_id, record in journal.records(JOURNAL_KIND).items():
            if record.get("model") == self.identity and record.get("state") == SUBMITTED:
                self._submitted.update(dict.fromkeys(record["requests"], batch_id))

    async def chat(self, request: ChatRequest) -> ChatResult:
        """The answer to `request` once its batch has finished; identical requests waiting at
        the same time share one line of the batch."""
        custom_id = request.cache_key(self.identity)
        call = self._calls.get(custom_id)
        if call is None:
            call = asyncio.get_running_loop().create_future()
            self._calls[custom_id] = call
            self._route(custom_id, request, call)
        return await call

    def _route(self, custom_id: str, request: ChatRequest, call: asyncio.Future[Any]) -> None:
        """Wait for the batch an earlier run submitted this request in, else queue it."""
        found = self._submitted.pop(custom_id, None)
        if found is None:
            self._queue.waiting[custom_id] = call
            self._queue.lines.append(request_line(custom_id, self._inner.request_body(request)))
            self._queued()
            return
        batch = self._found.get(found)
        if batch is None:
            batch = self._found[found] = _Batch()
            self._spawn(self._follow(batch, found))
        if batch.outcomes is None:
            batch.waiting[custom_id] = call
        else:
            self._answer(custom_id, call, batch)

    def _queued(self) -> None:
        """Send the queue when full, else once it has been quiet for `idle_s`."""
        self._last_queued = time.monotonic()
        if len(self._queue.lines) >= self._settings.max_requests:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(
                self._settings.idle_s, self._when_quiet
            )

    def _when_quiet(self) -> None:
        """The timer: send the queue if nothing came in for `idle_s`, else wait the rest."""
        self._timer = None
        left = self._last_queued + self._settings.idle_s - time.monotonic()
        if left > 0:
            self._timer = asyncio.get_running_loop().call_later(left, self._when_quiet)
        else:
            self._flush()

    def _flush(self) -> None:
        """Send what is queued as one batch; the queue starts anew."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._queue = self._queue, _Batch()
        if batch.lines:
            self._spawn(self._send(batch))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: _Batch) -> None:
        """Submit, journal, follow; a batch that cannot be submitted fails its calls."""
        try:
            batch_id = await self._client.submit(batch.lines)
        except LLMError as exc:
            batch.end = LLMError(f"batch not submitted: {exc}", retryable=False)
            self._hand_out(batch, {})
            return
        batch.lines = []
        self._remember(batch_id, {"state": SUBMITTED, "requests": list(batch.waiting)})
        if self._journal is not None:  # safe from a kill before the first wait
            await self._journal.durable()
        await self._follow(batch, batch_id)

    async def _follow(self, batch: _Batch, batch_id: str) -> None:
        """Poll the batch until it finishes, then hand out its outcomes."""
        try:
            status = await self._client.status(batch_id)
            while not status.finished:
                await asyncio.sleep(self._settings.poll_s)
                status = await self._client.status(batch_id)
            outcomes = await self._outcomes(status)
        except LLMError as exc:  # the batch may still be fine: a rerun asks about it again
            batch.end = LLMError(f"batch {batch_id} not read: {exc}", retryable=False)
            self._hand_out(batch, {})
            return
        batch.end = no_result(status)
        self._hand_out(batch, outcomes)
        # after the calls just answered have been recorded (they run before this callback)
        record: BatchRecord = {"state": status.status, "results": len(outcomes)}
        asyncio.get_running_loop().call_soon(self._remember, batch_id, record)

    async def _outcomes(self, status: BatchStatus) -> dict[str, Outcome]:
        files = [f for f in (status.output_file_id, status.error_file_id) if f]
        return read_outcomes(status.id, *[await self._client.content(f) for f in files])

    def _hand_out(self, batch: _Batch, outcomes: dict[str, Outcome]) -> None:
        """Answer every call waiting for the finished (or unreadable) batch."""
        batch.outcomes = outcomes
        for custom_id, call in batch.waiting.items():
            self._answer(custom_id, call, batch)
        batch.waiting = {}

    def _answer(self, custom_id: str, call: asyncio.Future[Any], batch: _Batch) -> None:
        """One call's outcome: its line of the batch, or the batch's end."""
        assert batch.outcomes is not None and batch.end is not None
        self._calls.pop(custom_id, None)
        outcome = batch.outcomes.get(custom_id, batch.end)
        if call.done():
            return
        if isinstance(outcome, LLMError):
            call.set_exception(LLMError(str(outcome), retryable=False))
        else:
            call.set_result(outcome)

    def _remember(self, batch_id: str, record: BatchRecord) -> None:
        if self._journal is not None:
            self._journal.put_record(JOURNAL_KIND, batch_id, {"model": self.identity, **record})

    async def count_tokens(self, messages: tuple[Message, ...]) -> int | None:
        return await self._inner.count_tokens(messages)

    async def aclose(self) -> None:
        """Stop waiting for batches (they run on at the provider; a rerun picks them up)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._client.aclose()
        await self._inner.aclose()
