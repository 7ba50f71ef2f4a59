"""Framework overhead of `generate`: items through checkbench vs. a bare aiohttp loop.

Both clients talk to the same instant OpenAI-compatible server (bench/instant_server.py, in
another process) with the same concurrency, side by side in one run. Prints items/s and the
CPU milliseconds per item spent in the client process, and their ratios.

    python bench/bench_generate.py [N]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from instant_server import InstantServer

from checkbench import api
from checkbench.llm import ModelOptions

CONCURRENCY = 32


def _write_bench(path: Path, n: int) -> None:
    with path.open("w") as out:
        for i in range(n):
            record = {
                "id": f"q{i}",
                "messages": [
                    {"role": "user", "content": f"Question number {i}: what is {i} + {i}?"}
                ],
                "checklist": [{"id": "c1", "text": "gives the right sum"}],
            }
            out.write(json.dumps(record) + "\n")


def _measure(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _bare_client(base_url: str, n: int) -> None:
    """The floor: the same HTTP client library with no framework around it."""

    async def run() -> None:
        connector = aiohttp.TCPConnector(limit=CONCURRENCY)
        async with aiohttp.ClientSession(connector=connector) as client:
            queue = list(range(n))

            async def worker() -> None:
                while queue:
                    i = queue.pop()
                    payload = {
                        "model": "instant",
                        "messages": [{"role": "user", "content": f"q {i}"}],
                    }
                    async with client.post(f"{base_url}/chat/completions", json=payload) as reply:
                        await reply.json()

            await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))

    asyncio.run(run())


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmpdir, InstantServer() as base_url:
        tmp = Path(tmpdir)
        bench = tmp / "bench.jsonl"
        _write_bench(bench, n)
        options = ModelOptions(base_url=base_url, concurrency=CONCURRENCY)
        _bare_client(base_url, 50)  # warm up both paths once
        raw_wall, raw_cpu = _measure(lambda: _bare_client(base_url, n))
        cb_wall, cb_cpu = _measure(
            lambda: api.generate(bench, ["openai:instant"], tmp / "run", options=options)
        )
    print(f"items: {n}, concurrency: {CONCURRENCY}")
    print(f"bare aiohttp: {n / raw_wall:8.0f} items/s  {raw_cpu / n * 1e3:6.3f} CPU ms/item")
    print(f"checkbench  : {n / cb_wall:8.0f} items/s  {cb_cpu / n * 1e3:6.3f} CPU ms/item")
    print(
        f"ratio checkbench/bare: throughput {raw_wall / cb_wall:.2f}x, CPU {cb_cpu / raw_cpu:.2f}x"
    )
    print(f"checkbench's own CPU (beyond bare aiohttp): {(cb_cpu - raw_cpu) / n * 1e3:.3f} ms/item")
    print("targets: >= 500 items/s, <= 2 ms checkbench CPU per item")


if __name__ == "__main__":
    main()
