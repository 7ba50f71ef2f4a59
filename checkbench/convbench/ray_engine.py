"""Conv-to-Bench builds on Ray: a `BuildEngine` whose workers parse the log records, embed the
first user messages and make the model stages' decisions, while the driver writes the run.

What stays on the driver, and why: reading the logs' lines (their numbers locate errors, their
order decides which of two conversations with one id is kept, and `--limit` counts them),
the topic clustering (k-means needs every vector: they wait in a scratch file and are fitted
chunk by chunk, so memory is the sample plus one chunk), and every write to the run store.
Records go to Ray `ray.chunk` lines per pipeline and come back in order, so the driver holds
one pipeline's lines and conversations at a time; the candidates that reach the model stages
are held as locally.

The model stages go through `RayDispatch`: a decision whose every call is stored (a rerun) is
made here from the cache, as locally; the others go to workers with the stored answers they
met, so a worker replays those and calls the model for the rest.
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from checkbench.convbench.ingest import Format, Parsed, RawRow, parse_rows
from checkbench.convbench.spec import LOCAL_ENGINE, BuildEngine
from checkbench.distributed.executor import (
    Executor,
    RayExecutor,
    ray_executor,
    ray_module,
)
from checkbench.distributed.stages import RayDispatch, pipeline
from checkbench.distributed.worker import DONE, JOB
from checkbench.errors import CheckbenchError
from checkbench.llm import ModelOptions

C = TypeVar("C")
R = TypeVar("R")
EMBED_CHUNKS = 16
"""Chunks of first messages (topics' `chunk_size` each) embedded per pipeline."""


def build_engine(executor: Executor, spec: str, options: ModelOptions | None) -> BuildEngine:
    """The engine of `executor` for a build whose model is `spec`, opened with `options`."""
    ray = ray_executor(executor)
    if ray is None:
        return LOCAL_ENGINE
    ray_module()
    return BuildEngine(
        parse=functools.partial(_parse, ray),
        embed=functools.partial(_embed, ray),
        dispatch=RayDispatch(ray, (spec,), options),
    )


def apply_chunks(batch: Any, fn: Callable[[Any], Any]) -> dict[str, list[bytes]]:
    """A Ray Data task: `fn` of each (number, chunk) row of a batch."""
    done = []
    for blob in batch.column(JOB).to_pylist():
        number, chunk = pickle.loads(blob)
        done.append(pickle.dumps((number, fn(chunk))))
    return {DONE: done}


def ordered_map(
    ray: RayExecutor, fn: Callable[[C], R], chunks: Iterable[C], per_pipeline: int
) -> Iterator[R]:
    """`fn` of every chunk on the workers, `per_pipeline` chunks per Ray Data pipeline, the
    results in the chunks' order. An input error met while reading the chunks is raised once
    the chunks read before it are through, as reading them here would."""
    numbered = enumerate(chunks)
    while True:
        group: list[tuple[int, C]] = []
        failure: CheckbenchError | None = None
        try:
            for pair in numbered:
                group.append(pair)
                if len(group) == per_pipeline:
                    break
        except CheckbenchError as exc:
            failure = exc
        if group:
            rows = [pickle.dumps(pair) for pair in group]
            done = pipeline(ray, rows, apply_chunks, {"fn": fn}, batch_size=1)
            results = sorted(map(pickle.loads, done), key=lambda pair: pair[0])
            yield from (result for _, result in results)
        if failure is not None:
            raise failure
        if len(group) < per_pipeline:
            return


def _parse(ray: RayExecutor, name: str, fmt: Format, rows: Iterator[RawRow]) -> Iterator[Parsed]:
    """`parse_rows` on the workers, `ray.batch_size` records per batch."""
    parse = functools.partial(_parse_chunk, name, fmt)
    per_pipeline = max(1, ray.chunk // ray.batch_size)
    for parsed in ordered_map(ray, parse, _batches(rows, ray.batch_size), per_pipeline):
        yield from parsed


def _parse_chunk(name: str, fmt: Format, rows: list[RawRow]) -> list[Parsed]:
    return list(parse_rows(name, fmt, rows))


def _batches(rows: Iterator[RawRow], size: int) -> Iterator[list[RawRow]]:
    """The rows `size` at a time; the rows read before an input error come out before it."""
    batch: list[RawRow] = []
    failure: CheckbenchError | None = None
    try:
        for row in rows:
            batch.append(row)
            if len(batch) == size:
                yield batch
                batch = []
    except CheckbenchError as exc:
        failure = exc
    if batch:
        yield batch
    if failure is not None:
        raise failure


def _embed(ray: RayExecutor, embedder: Any, chunks: Iterable[Sequence[str]]) -> Iterator[Any]:
    """The fitted embedder shipped to the workers, each chunk embedded there. An embedder
    that calls an endpoint embeds here: the endpoint does the work."""
    from checkbench.convbench.embed import OpenAIEmbedder, embed_here

    if isinstance(embedder, OpenAIEmbedder):
        return embed_here(embedder, chunks)
    return ordered_map(ray, functools.partial(_embed_chunk, embedder), chunks, EMBED_CHUNKS)


def _embed_chunk(embedder: Any, texts: Sequence[str]) -> Any:
    from threadpoolctl import threadpool_limits  # with scikit-learn (the build extra)

    # one BLAS thread, as the driver embeds (thread counts can change the last bits)
    with threadpool_limits(limits=1):
        return embedder.embed(texts)
