"""The Python API: each function is what one CLI command does."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from checkbench.benchmarks import load_items
from checkbench.calls import Caller
from checkbench.generate import GenerationSettings, StageSummary, generate_responses

__all__ = ["GenerationSettings", "StageSummary", "generate", "prepare_run"]
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend
from checkbench.progress import ProgressSink
from checkbench.store import RunStore


async def _close_all(backends: Sequence[ChatBackend]) -> None:
    for backend in backends:
        await backend.aclose()


def prepare_run(bench: str | Path, run_dir: str | Path, *, fmt: str = "auto") -> RunStore:
    """Validate the whole benchmark first, then add its items to the run store."""
    items = load_items(bench, fmt)
    store = RunStore(run_dir)
    store.add_items(items)
    store.set_meta_default("benchmark", str(bench))
    return store


def generate(
    bench: str | Path,
    models: Sequence[str],
    run_dir: str | Path,
    *,
    fmt: str = "auto",
    settings: GenerationSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> StageSummary:
    """Answer every item of `bench` with every model; rerunning resumes where it stopped."""
    backends = [open_backend(spec, options) for spec in models]
    with prepare_run(bench, run_dir, fmt=fmt) as store:

        async def run() -> StageSummary:
            try:
                return await generate_responses(
                    store, backends, settings=settings, caller=Caller(store), progress=progress
                )
            finally:
                await _close_all(backends)

        return asyncio.run(run())
