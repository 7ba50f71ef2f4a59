"""Instructions per item of the generate + judge clients, counted by callgrind: ratios that do
not move with the load of a shared machine.

Wall-clock rounds (bench_generate.py) swing by a third here; the instructions a client executes
for the same items do not (to a fraction of a percent). Besides the bare loop, `checkbench
generate` then `judge` and `checkbench run`, an "http" client makes the same two calls per item
through checkbench's backend alone (`OpenAIBackend.chat`, the requests built beforehand as the
bare loop's bodies are): what the framework adds beyond its HTTP calls is the difference between
it and the others. Each client runs in its own process
under `valgrind --tool=callgrind`, against the same instant server (not counted: it runs in
another process), on the same items and at the same concurrency: a warm-up on 100 items, then
the counted run. `checkbench run` is counted phase by phase (reading the benchmark in,
answering and judging, scoring). Instructions are not time: SQLite's writes and the collector
cost more time per instruction than the HTTP client's parsing, so the wall-clock ratio is
somewhat below the instruction ratio. Needs valgrind (`apt-get install valgrind`); about two
minutes per client for 1,000 items.

    python bench/bench_instructions.py [N] [--concurrency C]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CLIENTS = ("bare", "http", "stages", "run")
PHASES = ("prepare_run", "answer_and_judge", "_score_by_protocol")
"""The phases of `checkbench run` counted apart (functions of checkbench.evaluation.flow)."""


def _dump(label: str) -> None:
    """Write callgrind's counts since the last dump under `label` (and zero them)."""
    subprocess.run(["callgrind_control", "-d", label, str(os.getpid())], capture_output=True)


def _counted(module: Any, name: str) -> None:
    """Dump the counts before and after each call of `module.name`, so that it is its own."""
    inner = getattr(module, name)

    @functools.wraps(inner)
    def call(*args: Any, **kwargs: Any) -> Any:
        _dump(f"before-{name}")
        try:
            return inner(*args, **kwargs)
        finally:
            _dump(name)

    setattr(module, name, call)


def _client(name: str, n: int, concurrency: int, base_url: str, work: Path) -> None:
    """Run one client (inside valgrind): a warm-up, then the counted run between dumps."""
    import bench_generate as bg

    from checkbench.evaluation import flow
    from checkbench.llm import ModelOptions

    items = bg._items(n, 4)
    bench, warm = work / "bench.jsonl", work / "warm.jsonl"
    bench.write_text("".join(item.model_dump_json() + "\n" for item in items))
    warm.write_text("".join(item.model_dump_json() + "\n" for item in items[:100]))
    models = work / "models.toml"
    bg._write_models(models, concurrency)
    options = ModelOptions(base_url=base_url, models_file=models)
    runs: dict[str, Callable[[str, Path], None]] = {
        "bare": lambda run, path: bg._bare_client(base_url, items, concurrency),
        "http": lambda run, path: _http_client(base_url, items, concurrency),
        "stages": lambda run, path: bg._checkbench(work / run, path, options),
        "run": lambda run, path: bg._checkbench_run(work / run, path, options),
    }
    for run in ("warm", "counted"):
        (work / run).mkdir()
    if name == "bare":
        bg._bare_client(base_url, items[:100], 8)
    elif name == "http":
        _http_client(base_url, items[:100], 8)
    else:
        runs[name]("warm", warm)
    if name == "run":
        for phase in PHASES:
            _counted(flow, phase)
    _dump("warm-up")
    runs[name]("counted", bench)
    _dump("end")


def _http_client(base_url: str, items: list[Any], concurrency: int) -> None:
    """The bare loop's two calls per item through checkbench's backend, nothing else: the
    candidate's request and the judge's (with its answer's schema), built beforehand."""
    import asyncio

    from bench_generate import CANDIDATE, JUDGE

    from checkbench.generation.requests import GenerationSettings, candidate_request
    from checkbench.judges.checklist import JudgeSettings, text_request, verdicts_answer
    from checkbench.llm.openai_compat import OpenAIBackend
    from checkbench.steps import loop
    from checkbench.steps.answers import answer_schema
    from checkbench.testing import ANSWER

    candidate = OpenAIBackend(CANDIDATE, base_url=base_url, concurrency=concurrency)
    judge = OpenAIBackend(JUDGE, base_url=base_url, concurrency=concurrency)

    async def run() -> None:
        requests = []
        for item in items:
            schema = answer_schema(verdicts_answer(tuple(c.id for c in item.checklist)))
            judged = text_request(item, ANSWER, JudgeSettings())
            asked = await candidate_request(item, GenerationSettings(), candidate)
            requests.append((asked, judged.model_copy(update={"json_schema": schema})))

        async def worker() -> None:
            while requests:
                asked, judged = requests.pop()
                await candidate.chat(asked)
                await judge.chat(judged)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        await candidate.aclose()
        await judge.aclose()

    loop.run(run())


def _totals(out: Path) -> dict[str, int]:
    """Instructions by dump label, from callgrind's dump files of one process."""
    found: dict[str, int] = {}
    for dump in out.parent.glob(f"{out.name}.*"):
        lines = dump.read_text().splitlines()
        label = next(line for line in lines if line.startswith("desc: Trigger"))
        label = label.removeprefix("desc: Trigger: dump ").strip()
        total = next(line for line in lines if line.startswith(("summary:", "totals:")))
        found[label] = found.get(label, 0) + int(total.split()[1])
    found["counted"] = sum(v for k, v in found.items() if k != "warm-up")
    return found


def _count(name: str, n: int, concurrency: int, base_url: str, tmp: Path) -> dict[str, int]:
    work = tmp / name
    work.mkdir()
    out = work / "callgrind.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--client",
        name,
        str(n),
        "--concurrency",
        str(concurrency),
        "--base-url",
        base_url,
        "--work",
        str(work),
    ]
    subprocess.run(command, check=True, capture_output=True)
    return _totals(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--client", choices=CLIENTS, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    if args.client:
        _client(args.client, args.n, args.concurrency, args.base_url, args.work)
        return
    if shutil.which("valgrind") is None:
        sys.exit("needs valgrind (apt-get install valgrind)")
    from checkbench.testing import ServerProcess

    print(f"items: {args.n} x 4 checks, concurrency {args.concurrency}, under callgrind")
    with tempfile.TemporaryDirectory() as tmpdir, ServerProcess("--answers", "instant") as server:
        base_url = server.base_url
        counts = {
            name: _count(name, args.n, args.concurrency, base_url, Path(tmpdir)) for name in CLIENTS
        }
    per_item = {name: found["counted"] / args.n / 1e3 for name, found in counts.items()}
    for name in CLIENTS:
        print(f"  {name:<8} {per_item[name]:7.0f} k instructions/item")
    for name in CLIENTS[1:]:
        print(f"  {name}/bare: {per_item[name] / per_item['bare']:.2f}")
    phases = counts["run"]
    print("  run by phase: " + ", ".join(f"{p} {phases[p] / args.n / 1e3:.0f}k" for p in PHASES))


if __name__ == "__main__":
    main()
