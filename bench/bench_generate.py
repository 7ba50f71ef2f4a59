"""Framework overhead of generate + judge: items through checkbench vs. a bare aiohttp loop.

The clients talk to the same instant OpenAI-compatible server (checkbench.testing's server with
`--answers instant`, in another process) and make the same two calls per item (the candidate's
answer, then the checklist judge's verdicts on it), side by side in one run, at concurrency 32
and 128: a bare loop of that many workers, each answering then judging an item; `checkbench
generate` then `checkbench judge`, each model at that concurrency; and `checkbench run`, whose
workers judge each answer once it is stored (so up to each model's limit in flight, twice the
bare loop's calls at once) and which then scores the run. Prints items/s and the CPU
milliseconds per item spent in the client process, and their ratios: medians over `--rounds`
rounds in which each client goes first in turn. `--profile` writes a cProfile of checkbench's
first generate + judge at the first concurrency to bench-generate.prof (read it with `python -m
pstats`).

All run on the event loop checkbench uses (uvloop where installed, the collector tuned as for a
stage: the bare loop's instructions are the same either way, it allocates little); `--loop
asyncio` puts them on asyncio's own loop instead, to measure what the loop changes. For ratios
that do not move with the machine's load, bench_instructions.py counts instructions.
`--latency-ms MS` gives the server a model's latency (see checkbench/testing/__main__.py):
then `run`'s overlap of the two models' calls shows in the wall time, and the CPU figures still
compare the clients' work.

    python bench/bench_generate.py [N] [--checks K] [--rounds R] [--loop asyncio] [--profile]
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

from checkbench import api
from checkbench.judges.checklist import JudgeSettings, text_request, verdicts_answer
from checkbench.llm import ModelOptions
from checkbench.schema import Item
from checkbench.steps import loop
from checkbench.steps.answers import answer_schema
from checkbench.testing import ANSWER, ServerProcess

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

    loop.run(run())


def _checkbench(tmp: Path, bench: Path, options: ModelOptions) -> None:
    """`checkbench generate`, then `checkbench judge`: stage after stage."""
    run_dir = tmp / "staged"
    api.generate(bench, [CANDIDATE], run_dir, options=options)
    api.judge(run_dir, JUDGE, options=options)


def _checkbench_run(tmp: Path, bench: Path, options: ModelOptions) -> None:
    """`checkbench run`: each answer judged as soon as it is stored, then the scores."""
    api.run(bench, [CANDIDATE], JUDGE, tmp / "run", options=options)


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
    return f"  {label:<27} {n / wall:6.0f} items/s  {cpu / n * 1e3:6.3f} CPU ms/item"


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The median wall and CPU seconds of a client's rounds."""
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def _compare(
    tmp: Path, bench: Path, items: list[Item], base_url: str, concurrency: int, args: Any
) -> tuple[float, float]:
    """The clients at one concurrency, side by side over rounds (each going first in turn: a
    slow spell of the shared machine falls on all); prints the medians and returns the median
    items/s of checkbench's generate + judge and of its run."""
    models = tmp / f"models-{concurrency}.toml"
    _write_models(models, concurrency)
    options = ModelOptions(base_url=base_url, models_file=models)
    rounds: dict[str, list[tuple[float, float]]] = {"bare": [], "stages": [], "run": []}
    for round_ in range(args.rounds):
        work = tmp / f"c{concurrency}-{round_}"
        work.mkdir()
        profile = args.profile and concurrency == CONCURRENCIES[0] and round_ == 0
        written = Path("bench-generate.prof") if profile else None
        clients = [
            ("bare", lambda: _bare_client(base_url, items, concurrency), None),
            ("stages", functools.partial(_checkbench, work, bench, options), written),
            ("run", functools.partial(_checkbench_run, work, bench, options), None),
        ]
        shift = round_ % len(clients)  # each client goes first in turn
        for name, client, prof in clients[shift:] + clients[:shift]:
            rounds[name].append(_measure(client, prof))
    n = len(items)
    bare = rounds["bare"]
    print(f"concurrency {concurrency} (medians of {args.rounds} rounds):")
    print(_row("bare aiohttp", n, bare))
    raw_wall, raw_cpu = _median(bare)
    for name, label in (("stages", "generate + judge"), ("run", "run")):
        ours = rounds[name]
        cb_wall, cb_cpu = _median(ours)
        ratios = sorted(b[0] / o[0] for b, o in zip(bare, ours, strict=True))
        print(_row(f"checkbench {label}", n, ours))
        print(
            f"    /bare: throughput {raw_wall / cb_wall:.2f} (rounds {ratios[0]:.2f}-"
            f"{ratios[-1]:.2f}), CPU {cb_cpu / raw_cpu:.2f}, own CPU (beyond the bare "
            f"loop's) {(cb_cpu - raw_cpu) / n * 1e3:.3f} ms/item"
        )
    return n / _median(rounds["stages"])[0], n / _median(rounds["run"])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=2000)
    parser.add_argument("--checks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loop", choices=("default", "asyncio"), default="default")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="the server's mean wait")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.loop == "asyncio":  # both clients: checkbench's runs call loop.new_event_loop
        loop.new_event_loop = asyncio.new_event_loop
    items = _items(args.n, args.checks)
    print(f"items: {args.n} x {args.checks} checks, 2 calls per item (generate + judge)")
    print(f"event loop: {type(loop.new_event_loop()).__module__}")
    server = ServerProcess("--answers", "instant", "--latency-ms", str(args.latency_ms))
    print(f"server: instant, mean latency {args.latency_ms:g} ms")
    with tempfile.TemporaryDirectory() as tmpdir, server:
        tmp, base_url = Path(tmpdir), server.base_url
        bench = tmp / "bench.jsonl"
        bench.write_text("".join(item.model_dump_json() + "\n" for item in items))
        _warm_up(tmp, items[:50], base_url)
        rates = [_compare(tmp, bench, items, base_url, c, args) for c in CONCURRENCIES]
    low, high = CONCURRENCIES
    for index, label in enumerate(("generate + judge", "run")):
        speed = rates[1][index] / rates[0][index]
        print(f"checkbench {label} at {high} vs {low}: {speed:.2f}x the items/s")
    print("targets: throughput ratio >= 0.50, own CPU <= 0.8 ms/item, 128 not slower than 32")


if __name__ == "__main__":
    main()
