"""checkbench's HTTP path against a real server: completion tokens/s vs. a bare aiohttp client.

Starts llama.cpp's native `llama-server` (bench/build_llama_server.sh) with the embedded GGUF
and parallel slots, waits for /health, then sends the same N chat completions (fixed
max_tokens, temperature 0) at the same concurrency from (a) a bare asyncio/aiohttp client and
(b) `checkbench.api.generate` with the inline spec `openai:NAME@URL` (the same work as
`checkbench generate --concurrency P --max-tokens M --temperature 0`), both in this process,
interleaved over rounds (a b b a ...). Completion tokens are the usage the server returned
(checkbench's from its run store). Prints tokens/s of each, CPU ms per request, and the ratio;
the target is checkbench >= 95% of the bare client. The machine is shared: read the ratio.
While each client runs, the server's /slots is polled: the mean number of slots busy says
whether a client kept the server full (a client that drops below the slots loses throughput).

    python bench/bench_llama_server.py [--requests 64] [--parallel 4] [--max-tokens 128]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from anywhere: checkbench is this repo's
    sys.path.insert(0, str(REPO))

from checkbench import api  # noqa: E402
from checkbench.generation.requests import GenerationSettings  # noqa: E402
from checkbench.llm import ModelOptions  # noqa: E402

DEFAULT_BINARY = Path.home() / ".cache" / "checkbench" / "llama-server" / "bin" / "llama-server"
MODEL = "smollm2"
TARGET = 0.95
TOPICS = ("a lighthouse", "a river", "a market", "a library", "an orchard", "a train", "a bridge")


def _prompt(i: int) -> str:
    return f"Write a long, detailed story about {TOPICS[i % len(TOPICS)]} (story {i})."


@dataclass
class Round:
    tokens: int
    requests: int
    wall_s: float
    cpu_s: float
    busy: float = 0.0
    """Mean number of server slots processing while the round ran."""


class SlotWatch:
    """Polls llama-server's /slots in a thread while a round runs: the mean busy slots."""

    def __init__(self, base_url: str, every_s: float = 0.25) -> None:
        self._url = base_url.removesuffix("/v1") + "/slots"
        self._every = every_s
        self._counts: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(self._every):
            try:
                with urllib.request.urlopen(self._url, timeout=2) as reply:
                    slots = json.loads(reply.read())
            except (OSError, ValueError):
                continue
            self._counts.append(sum(1 for slot in slots if slot.get("is_processing")))

    def __enter__(self) -> SlotWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def mean(self) -> float:
        return statistics.fmean(self._counts) if self._counts else float("nan")


# -- the server -------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def _llama_server(binary: Path, gguf: Path, args: argparse.Namespace, log: Path) -> Iterator[str]:
    """llama-server in a child process until /health answers; yields its base URL."""
    port = _free_port()
    cmd = [str(binary), "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--parallel", str(args.parallel), "-c", str(args.ctx), "--alias", MODEL, "--no-webui"]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + args.startup_timeout
        while not _healthy(f"http://127.0.0.1:{port}/health"):
            if proc.poll() is not None:
                lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()]
                last = lines[-1] if lines else "no output"
                raise SystemExit(f"llama-server exited ({proc.returncode}): {last} (log: {log})")
            if time.monotonic() > deadline:
                raise SystemExit(f"llama-server not healthy after {args.startup_timeout:.0f} s")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# -- the two clients --------------------------------------------------------------------------
def _bare(base_url: str, n: int, concurrency: int, max_tokens: int) -> Round:
    """The floor: N chat completions from aiohttp with no framework around it."""

    async def run() -> tuple[int, int]:
        tokens = done = 0
        queue = list(range(n))
        timeout = aiohttp.ClientTimeout(total=None)
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as client:

            async def worker() -> None:
                nonlocal tokens, done
                while queue:
                    i = queue.pop(0)
                    payload = {
                        "model": MODEL,
                        "messages": [{"role": "user", "content": _prompt(i)}],
                        "max_tokens": max_tokens,
                        "temperature": 0,
                    }
                    async with client.post(f"{base_url}/chat/completions", json=payload) as reply:
                        reply.raise_for_status()
                        body = await reply.json()
                    tokens += int(body["usage"]["completion_tokens"])
                    done += 1

            await asyncio.gather(*(worker() for _ in range(concurrency)))
        return tokens, done

    wall, cpu = time.perf_counter(), time.process_time()
    tokens, done = asyncio.run(run())
    return Round(tokens, done, time.perf_counter() - wall, time.process_time() - cpu)


def _write_bench(path: Path, n: int) -> None:
    with path.open("w") as out:
        for i in range(n):
            record = {"id": f"s{i}", "messages": [{"role": "user", "content": _prompt(i)}]}
            out.write(json.dumps(record | {"checklist": [{"id": "c1", "text": "a story"}]}) + "\n")


def _checkbench(base_url: str, bench: Path, run: Path, concurrency: int, max_tokens: int) -> Round:
    """`checkbench generate` through the api; tokens are the usage stored per response."""
    settings = GenerationSettings(temperature=0.0, max_tokens=max_tokens)
    options = ModelOptions(concurrency=concurrency, api_key_env="CHECKBENCH_BENCH_KEY")
    wall, cpu = time.perf_counter(), time.process_time()
    api.generate(bench, [f"openai:{MODEL}@{base_url}"], run, settings=settings, options=options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    with contextlib.closing(sqlite3.connect(run / "run.sqlite")) as db:
        query = "SELECT COALESCE(SUM(completion_tokens), 0), COUNT(*) FROM calls WHERE status='ok'"
        tokens, done = db.execute(query).fetchone()
    return Round(int(tokens), int(done), wall, cpu)


# -- the run ------------------------------------------------------------------------------------
def _default_gguf() -> Path:
    from checkbench.llm.llamacpp import default_gguf

    return Path(default_gguf())


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--requests", type=int, default=64, help="chat completions per round")
    parser.add_argument("--parallel", type=int, default=4, help="server slots = concurrency")
    parser.add_argument("--ctx", type=int, default=4096, help="context, split over the slots")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each client")
    parser.add_argument(
        "--threads", type=int, default=1, help="server threads (0: llama.cpp's default, all cores)"
    )
    parser.add_argument("--startup-timeout", type=float, default=180.0)
    binary = Path(os.environ.get("CHECKBENCH_LLAMA_SERVER", DEFAULT_BINARY))
    parser.add_argument("--binary", type=Path, default=binary)
    parser.add_argument("--gguf", type=Path, default=None, help="default: the embedded model")
    return parser.parse_args()


def _line(name: str, rounds: list[Round]) -> tuple[float, str]:
    tokens, wall = sum(r.tokens for r in rounds), sum(r.wall_s for r in rounds)
    requests, cpu = sum(r.requests for r in rounds), sum(r.cpu_s for r in rounds)
    each = " ".join(f"{r.tokens / r.wall_s:.1f}" for r in rounds)
    busy = " ".join(f"{r.busy:.2f}" for r in rounds)
    text = f"{name:12} {tokens / wall:8.1f} tok/s  ({tokens} tokens, {requests} requests, "
    text += f"{wall:.1f} s; rounds: {each})  {cpu / max(requests, 1) * 1e3:.2f} CPU ms/request"
    text += f"\n{'':12} slots busy on average, by round: {busy}"
    return tokens / wall, text


def main() -> None:
    args = _args()
    if not (args.binary.is_file() and os.access(args.binary, os.X_OK)):
        raise SystemExit(
            f"llama-server not found at {args.binary}: run bench/build_llama_server.sh"
        )
    gguf = args.gguf or _default_gguf()
    if not gguf.is_file():
        raise SystemExit(f"GGUF model not found: {gguf}")
    n, p, m = args.requests, args.parallel, args.max_tokens
    bare: list[Round] = []
    ours: list[Round] = []
    with tempfile.TemporaryDirectory(prefix="bench-llama-") as tmpdir:
        tmp = Path(tmpdir)
        bench, warm = tmp / "bench.jsonl", tmp / "warm.jsonl"
        _write_bench(bench, n)
        _write_bench(warm, p)
        os.environ.setdefault("CHECKBENCH_BENCH_KEY", "bench")
        with _llama_server(args.binary, gguf, args, tmp / "llama-server.log") as url:
            _bare(url, p, p, 8)  # warm the server and both paths once
            _checkbench(url, warm, tmp / "warm", p, 8)
            for k in range(args.rounds):
                order = ("bare", "checkbench") if k % 2 == 0 else ("checkbench", "bare")
                for who in order:
                    with SlotWatch(url) as watch:
                        if who == "bare":
                            done = _bare(url, n, p, m)
                            bare.append(done)
                        else:
                            done = _checkbench(url, bench, tmp / f"run{k}", p, m)
                            ours.append(done)
                    done.busy = watch.mean
    print(
        f"command: python bench/bench_llama_server.py --requests {n} --parallel {p} "
        f"--ctx {args.ctx} --max-tokens {m} --rounds {args.rounds} --threads {args.threads}"
    )
    threads = args.threads or "default"
    print(f"llama-server --parallel {p} -c {args.ctx} --threads {threads}, model {gguf.name}")
    print(f"concurrency {p}, max_tokens {m}, temperature 0; rounds interleaved")
    print("the machine is shared (2 cores, others' jobs running): read the ratio")
    bare_rate, bare_text = _line("bare aiohttp", bare)
    ours_rate, ours_text = _line("checkbench", ours)
    print(bare_text)
    print(ours_text)
    pairs = [(o.tokens / o.wall_s) / (b.tokens / b.wall_s) for o, b in zip(ours, bare, strict=True)]
    median = statistics.median(pairs)
    ratio = ours_rate / bare_rate
    verdict = "meets" if ratio >= TARGET else "misses"
    print(f"ratio checkbench/bare: {ratio:.3f} ({verdict} the target >= {TARGET:.2f})")
    print(f"per-round ratios: {' '.join(f'{r:.3f}' for r in pairs)} (median {median:.3f})")


if __name__ == "__main__":
    main()
