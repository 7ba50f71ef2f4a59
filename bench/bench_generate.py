"""Framework overhead of generate + judge: items through checkbench vs. a bare aiohttp loop.

Both clients talk to the same instant OpenAI-compatible server (bench/instant_server.py, in
another process) and make the same two calls per item (the candidate's answer, then the
checklist judge's verdicts on it) at the same concurrency, side by side in one run, at
concurrency 32 and 128. Prints items/s and the CPU milliseconds per item spent in the client
process, and their ratios: medians over `--rounds` rounds that alternate which client goes
first. `--profile` writes a cProfile of checkbench's first run at the first concurrency to
bench-generate.prof (read it with `python -m pstats`).

    python bench/bench_generate.py [N] [--checks K] [--rounds R] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
from instant_server import ANSWER, InstantServer

from checkbench import api
from checkbench.judges.checklist import JudgeSettings, text_request, verdicts_answer
from checkbench.llm import ModelOptions
from checkbench.schema import Item
from checkbench.steps.answers import answer_schema

CONCURRENCIES = (32, 128)
CANDIDATE, JUDGE = "instant", "instant-judge"


def _items(n: int, checks: int) -> list[Item]:
    return [
        Item.model_validate(
            {
                "id": f"q{i}",
                "messages": [
                    {"role": "user", "content": f"Question number {i}: what is {i} + {i}?"}
                ],
                "checklist": [{"id": f"c{k}", "text": f"check {k} holds"} for k in range(checks)],
            }
        )
        for i in range(n)
    ]


def _write_models(path: Path, concurrency: int) -> None:
    """Both models at a fixed concurrency, as the bare loop has."""
    lines = []
    for alias in (CANDIDATE, JUDGE):
        lines += [f"[models.{alias}]", f'model = "{alias}"', f"concurrency = {concurrency}"]
        lines += [f"max_concurrency = {concurrency}", ""]
    path.write_text("\n".join(lines))


def _bare_payloads(item: Item) -> tuple[dict[str, Any], dict[str, Any]]:
    """The two request bodies checkbench sends for an item, built beforehand."""
    messages = [m.model_dump() for m in item.messages]
    candidate = {"model": CANDIDATE, "messages": messages, "temperature": 0.0, "max_tokens": 1024}
    request = text_request(item, ANSWER, JudgeSettings())
    schema = answer_schema(verdicts_answer(tuple(c.id for c in item.checklist)))
    judge = {
        "model": JUDGE,
        **request.sampling_params(),
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema},
        },
    }
    return candidate, judge


def _bare_client(base_url: str, items: list[Item], concurrency: int) -> None:
    """The floor: the same HTTP client library, the same two calls per item, no framework."""
    bodies = [_bare_payloads(item) for item in items]

    async def run() -> None:
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector) as client:
            queue = list(bodies)

            async def call(payload: dict[str, Any]) -> Any:
                url = f"{base_url}/chat/completions"
                async with client.post(url, data=json.dumps(payload)) as reply:
                    body = json.loads(await reply.read())
                return body["choices"][0]["message"]["content"]

            async def worker() -> None:
                while queue:
                    candidate, judge = queue.pop()
                    await call(candidate)
                    json.loads(await call(judge))

            await asyncio.gather(*(worker() for _ in range(concurrency)))

    asyncio.run(run())


def _checkbench(tmp: Path, bench: Path, options: ModelOptions) -> None:
    run_dir = tmp / "run"
    api.generate(bench, [CANDIDATE], run_dir, options=options)
    api.judge(run_dir, JUDGE, options=options)


def _warm_up(tmp: Path, items: list[Item], base_url: str) -> None:
    """Both clients once on a few items before anything is timed: the server's first
    requests, and checkbench's imports (start-up, measured apart: see the README), are not
    charged to the first concurrency's items."""
    _bare_client(base_url, items, 8)
    bench = tmp / "warm-up.jsonl"
    bench.write_text("".join(item.model_dump_json() + "\n" for item in items))
    models = tmp / "models-warm-up.toml"
    _write_models(models, 8)
    (tmp / "warm-up").mkdir()
    _checkbench(tmp / "warm-up", bench, ModelOptions(base_url=base_url, models_file=models))


def _measure(fn: Callable[[], None], profile: Path | None = None) -> tuple[float, float]:
    profiler = cProfile.Profile() if profile else None
    wall, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.runcall(fn)
        profiler.dump_stats(profile)
    else:
        fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _row(label: str, n: int, runs: list[tuple[float, float]]) -> str:
    wall, cpu = _median(runs)
    return f"  {label:<11} {n / wall:8.0f} items/s  {cpu / n * 1e3:6.3f} CPU ms/item"


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The median wall and CPU seconds of a client's rounds."""
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def _compare(
    tmp: Path, bench: Path, items: list[Item], base_url: str, concurrency: int, args: Any
) -> float:
    """Both clients at one concurrency, side by side over rounds (bare first, then checkbench
    first, and so on: a slow spell of the shared machine falls on both); prints the medians
    and returns checkbench's median items/s."""
    models = tmp / f"models-{concurrency}.toml"
    _write_models(models, concurrency)
    options = ModelOptions(base_url=base_url, models_file=models)
    bare: list[tuple[float, float]] = []
    ours: list[tuple[float, float]] = []
    for round_ in range(args.rounds):
        work = tmp / f"c{concurrency}-{round_}"
        work.mkdir()
        profile = args.profile and concurrency == CONCURRENCIES[0] and round_ == 0
        written = Path("bench-generate.prof") if profile else None
        clients = [
            (bare, lambda: _bare_client(base_url, items, concurrency), None),
            (ours, functools.partial(_checkbench, work, bench, options), written),
        ]
        for runs, client, prof in clients if round_ % 2 == 0 else clients[::-1]:
            runs.append(_measure(client, prof))
    n = len(items)
    (raw_wall, raw_cpu), (cb_wall, cb_cpu) = _median(bare), _median(ours)
    ratios = sorted(b[0] / o[0] for b, o in zip(bare, ours, strict=True))
    print(f"concurrency {concurrency} (medians of {args.rounds} rounds):")
    print(_row("bare aiohttp", n, bare))
    print(_row("checkbench", n, ours))
    print(
        f"  checkbench/bare: throughput {raw_wall / cb_wall:.2f} (rounds {ratios[0]:.2f}-"
        f"{ratios[-1]:.2f}), CPU {cb_cpu / raw_cpu:.2f}"
    )
    own = (cb_cpu - raw_cpu) / n * 1e3
    print(f"  checkbench's own CPU (beyond the bare loop's): {own:.3f} ms/item")
    return n / cb_wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=2000)
    parser.add_argument("--checks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    items = _items(args.n, args.checks)
    print(f"items: {args.n} x {args.checks} checks, 2 calls per item (generate + judge)")
    with tempfile.TemporaryDirectory() as tmpdir, InstantServer() as base_url:
        tmp = Path(tmpdir)
        bench = tmp / "bench.jsonl"
        bench.write_text("".join(item.model_dump_json() + "\n" for item in items))
        _warm_up(tmp, items[:50], base_url)
        rates = [_compare(tmp, bench, items, base_url, c, args) for c in CONCURRENCIES]
    low, high = CONCURRENCIES
    print(f"checkbench at {high} vs {low}: {rates[1] / rates[0]:.2f}x the items/s")
    print("targets: throughput ratio >= 0.50, own CPU <= 0.8 ms/item, 128 not slower than 32")


if __name__ == "__main__":
    main()
