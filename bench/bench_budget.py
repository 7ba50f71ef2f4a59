"""Where checkbench's CPU goes per item of generate + judge, step by step, outside any HTTP.

Each step a run takes for a judge call (building the request, keying the cache, encoding the
body, reading the reply, the store's reads and writes) is repeated for N items and timed with
the process clock: a per-call budget without a profiler's distortion; the store's steps run
in an event loop, committed in groups as in a run. The HTTP exchange itself is what
bench_generate.py's bare aiohttp loop measures.

    python bench/bench_budget.py [N]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_generate import JUDGE, _items
from pydantic_core import from_json

from checkbench.judges.checklist import JudgeSettings, text_request, verdicts_answer
from checkbench.llm.base import ChatRequest, ChatResult
from checkbench.llm.openai_compat import OpenAIBackend, _encoded, parse_completion
from checkbench.schema import Item, Response, Verdict
from checkbench.steps.answers import answer_schema, parse_answer
from checkbench.steps.caller import call_record
from checkbench.store import RunStore
from checkbench.testing import ANSWER, smallest_instance

PER_COMMIT = 11
Step = tuple[str, Callable[[int], Any]]
"""A label and what is done for item number i."""


def _store_steps(store: RunStore, items: list[Item], requests: list[ChatRequest]) -> list[Step]:
    """The store's reads and writes of one item, on an open store holding `items`."""
    result = ChatResult(content="{}", prompt_tokens=100, completion_tokens=20)
    checks = [c.id for c in items[0].checklist]

    def record(i: int) -> None:
        store.record_call(call_record(f"k{i}", JUDGE, "judge", requests[i], result, None, 0.01))

    def respond(i: int) -> None:
        store.put_response(Response(item_id=items[i].id, model="m", content=ANSWER))

    def judge(i: int) -> None:
        store.put_verdicts(
            Verdict(item_id=items[i].id, model="m", judge=JUDGE, check_id=c, passed=True)
            for c in checks
        )

    return [
        ("store: cache lookup (a miss)", lambda i: store.cached_result(f"k{i}")),
        ("store: record a judge call", record),
        ("store: put a response", respond),
        ("store: put an item's verdicts", judge),
    ]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    items = _items(n, 4)
    answer = verdicts_answer(tuple(c.id for c in items[0].checklist))
    schema = answer_schema(answer)
    backend = OpenAIBackend(JUDGE, base_url="http://127.0.0.1:9/v1")
    settings = JudgeSettings()
    raw = json.dumps(smallest_instance(schema))
    reply = {"choices": [{"message": {"content": raw}, "finish_reason": "stop"}], "usage": {}}
    body = json.dumps(reply).encode()
    requests = [
        text_request(item, ANSWER, settings).model_copy(update={"json_schema": schema})
        for item in items
    ]
    steps: list[Step] = [
        ("judge request (its prompt)", lambda i: text_request(items[i], ANSWER, settings)),
        ("cache key of a judge request", lambda i: requests[i].cache_key(JUDGE)),
        ("HTTP body of it, encoded", lambda i: _encoded(backend.request_body(requests[i]))),
        ("reply read into a ChatResult", lambda i: parse_completion(from_json(body))),
        ("verdicts parsed and validated", lambda i: parse_answer(raw, answer)),
    ]
    print(f"CPU ms per call, over {n} items x 4 checks")
    for label, step in steps:
        print(f"  {label:<32} {_timed(step, n):6.3f}")
    with tempfile.TemporaryDirectory() as tmp, RunStore(Path(tmp)) as store:
        store.add_items(items)
        for label, step in _store_steps(store, items, requests):
            print(f"  {label:<32} {asyncio.run(_in_a_run(store, step, n)):6.3f}")


def _timed(step: Callable[[int], Any], n: int) -> float:
    start = time.process_time()
    for i in range(n):
        step(i)
    return (time.process_time() - start) / n * 1e3


async def _in_a_run(store: RunStore, step: Callable[[int], Any], n: int) -> float:
    """A store step as a run makes it: inside the event loop, its writes group-committed
    every `PER_COMMIT` items (what one turn of the loop finishes at concurrency 128)."""
    start = time.process_time()
    for i in range(n):
        step(i)
        if i % PER_COMMIT == PER_COMMIT - 1:
            await store.durable()
    await store.durable()
    return (time.process_time() - start) / n * 1e3


if __name__ == "__main__":
    main()
