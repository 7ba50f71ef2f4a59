"""FB-Bench's published GPT-4o judgments as a run, and the embedded model judging a small
sample of it in log-prob mode (built once per test process, shared by the tests that need it)."""

from __future__ import annotations

import asyncio
import functools
import tempfile
from dataclasses import dataclass
from pathlib import Path

from checkbench.fbbench.judgments import JudgmentImport, load_fbbench_judgment_dir
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.judges.stage import judge_responses
from checkbench.llm import open_backend
from checkbench.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"
GPT4O = "gpt-4o-2024-08-06"
SAMPLE_MODELS = ("DeepSeek-V3", "Meta-Llama-3.1-8B-Instruct")
# English instructions: under the Chinese log-prob prompt the embedded model answers with no
# yes/no token at all, so every verdict would be unscored.
LOGPROB = JudgeSettings(mode="logprob", language="en")


@functools.cache
def published() -> JudgmentImport:
    return load_fbbench_judgment_dir(PUBLISHED)


def _fill(store: RunStore, data: JudgmentImport, items: set[str], models: set[str]) -> None:
    store.add_items(item for item in data.items if item.id in items)
    for response in data.responses:
        if response.item_id in items and response.model in models:
            store.put_response(response)
    store.put_verdicts(v for v in data.verdicts if v.item_id in items and v.model in models)


def published_run(tmp_path: Path) -> RunStore:
    """Every published record of the six models, as a run (judge GPT4O)."""
    data = published()
    store = RunStore(tmp_path / "published")
    _fill(store, data, {i.id for i in data.items}, {r.model for r in data.responses})
    return store


@dataclass(frozen=True)
class Sample:
    items: tuple[str, ...]
    models: tuple[str, ...]


def shortest_items(data: JudgmentImport, models: tuple[str, ...], n: int) -> tuple[str, ...]:
    """The n items (with two checks or more) whose longest prompt among the models is
    shortest: the embedded model reads every token of it for each response."""
    items = {item.id: item for item in data.items if len(item.checklist) >= 2}
    longest: dict[str, int] = {}
    for r in data.responses:
        if r.model in models and r.item_id in items:
            size = sum(len(m.content) for m in items[r.item_id].messages) + len(r.content or "")
            longest[r.item_id] = max(longest.get(r.item_id, 0), size)
    return tuple(sorted(longest, key=lambda i: (longest[i], i))[:n])


@functools.cache
def embedded_sample(n_items: int = 2) -> tuple[RunStore, str, Sample]:
    """A run of SAMPLE_MODELS' published answers to the `n_items` shortest items, judged by
    GPT-4o (published) and by the embedded model in log-prob mode."""
    data = published()
    sample = Sample(shortest_items(data, SAMPLE_MODELS, n_items), SAMPLE_MODELS)
    store = RunStore(Path(tempfile.mkdtemp(prefix="checkbench-sample-")))
    _fill(store, data, set(sample.items), set(sample.models))
    backend = open_backend("local")
    asyncio.run(judge_responses(store, backend, settings=LOGPROB))
    return store, judge_name(backend, LOGPROB), sample
