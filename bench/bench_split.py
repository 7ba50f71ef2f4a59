"""The machine's ceiling for checkbench's client: `checkbench run` split over processes.

bench_generate.py measures checkbench in one process against a bare aiohttp loop; both are
bound by their own CPU while the instant server takes the other core. This asks how far more
processes could go here: the same items, halved (or split K ways), each part run by
`checkbench run` in its own process with its own run store, all at once (nothing shared, so no
split of one run could do better), against the bare loop in one process and `run` in one
process, side by side over `--rounds` rounds at one concurrency. Each process is started and
warmed up (imports, a small run) before its clock starts; the split's time is from the first
start to the last end. Prints items/s, the client processes' CPU and the server's CPU per item,
and the ratios to the bare loop.

    python bench/bench_split.py [N] [--rounds R] [--concurrency C] [--processes K]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import bench_generate

from checkbench import api
from checkbench.llm import ModelOptions
from checkbench.schema import Item
from checkbench.testing import ServerProcess

WARM_UP_ITEMS = 40


def _child(bench: Path, models: Path, run_dir: Path, base_url: str) -> None:
    """One part: warm up, say ready, wait for the go, run it, print its clock and CPU."""
    options = ModelOptions(base_url=base_url, models_file=models)
    warm = run_dir.with_name(run_dir.name + "-warm-up")
    lines = bench.read_text().splitlines(keepends=True)[:WARM_UP_ITEMS]
    (warm_bench := warm.with_suffix(".jsonl")).write_text("".join(lines))
    api.run(warm_bench, [bench_generate.CANDIDATE], bench_generate.JUDGE, warm, options=options)
    print("ready", flush=True)
    sys.stdin.readline()
    start, cpu = time.time(), time.process_time()
    api.run(bench, [bench_generate.CANDIDATE], bench_generate.JUDGE, run_dir, options=options)
    took = {"start": start, "end": time.time(), "cpu": time.process_time() - cpu}
    print(json.dumps(took), flush=True)


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _parts(
    tmp: Path, parts: Sequence[list[Item]], models: Path, base_url: str, tag: str
) -> tuple[float, float]:
    """The parts in processes at once: (seconds from the first start to the last end, the
    processes' CPU seconds)."""
    children = []
    for index, part in enumerate(parts):
        bench = tmp / f"{tag}-{index}.jsonl"
        bench.write_text("".join(item.model_dump_json() + "\n" for item in part))
        command = [sys.executable, __file__, "--child", str(bench), str(models)]
        command += [str(tmp / f"{tag}-{index}"), base_url]
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        children.append(child)
    for child in children:
        assert child.stdout and child.stdout.readline().strip() == "ready"
    for child in children:
        assert child.stdin
        child.stdin.write("go\n")
        child.stdin.flush()
    took = [json.loads(child.stdout.readline()) for child in children if child.stdout]
    for child in children:
        if child.wait() != 0:
            raise RuntimeError(f"a part of {tag} failed")
    wall = max(t["end"] for t in took) - min(t["start"] for t in took)
    return wall, sum(t["cpu"] for t in took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        bench, models, run_dir, base_url = args.child
        _child(Path(bench), Path(models), Path(run_dir), base_url)
        return
    items = bench_generate._items(args.n, 4)
    k, concurrency = args.processes, args.concurrency
    print(f"items: {args.n} x 4 checks; concurrency {concurrency}; split over {k} processes")
    server = ServerProcess("--answers", "instant")
    with tempfile.TemporaryDirectory() as tmpdir, server:
        tmp, base_url = Path(tmpdir), server.base_url
        server_pid = server.pid
        bench_generate._warm_up(tmp, items[:50], base_url)
        whole, split = tmp / "whole.toml", tmp / "split.toml"
        bench_generate._write_models(whole, concurrency)
        bench_generate._write_models(split, max(1, concurrency // k))
        parts = [items[i::k] for i in range(k)]
        clients: dict[str, Callable[[str], tuple[float, float]]] = {
            "bare loop, 1 process": lambda _: bench_generate._measure(
                lambda: bench_generate._bare_client(base_url, items, concurrency)
            ),
            "run, 1 process": lambda tag: _parts(tmp, [items], whole, base_url, tag),
            f"run, {k} processes at {concurrency}": lambda tag: _parts(
                tmp, parts, whole, base_url, tag
            ),
            f"run, {k} processes at {concurrency // k}": lambda tag: _parts(
                tmp, parts, split, base_url, tag
            ),
        }
        rounds: dict[str, list[tuple[float, float, float]]] = {name: [] for name in clients}
        for round_ in range(args.rounds):
            for number, (name, client) in enumerate(clients.items()):
                before = _cpu_s(server_pid)
                wall, cpu = client(f"r{round_}c{number}")
                rounds[name].append((wall, cpu, _cpu_s(server_pid) - before))
    bare = [wall for wall, _, _ in rounds["bare loop, 1 process"]]
    n = args.n
    for name, runs in rounds.items():
        wall = statistics.median(w for w, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        served = statistics.median(s for _, _, s in runs)
        ratios = sorted(b / w for b, (w, _, _) in zip(bare, runs, strict=True))
        print(
            f"  {name:<28} {n / wall:6.0f} items/s  client CPU {cpu / n * 1e3:.3f} ms/item  "
            f"server CPU {served / n * 1e3:.3f} ms/item  /bare {statistics.median(bare) / wall:.2f}"
            f" (rounds {ratios[0]:.2f}-{ratios[-1]:.2f})"
        )


if __name__ == "__main__":
    main()
