"""Scale: memory and time of the commands that fill or read a whole run, side by side in one run.

Every measurement is one `python -m checkbench ...` (or helper) subprocess; its peak RSS is the
child's own ru_maxrss (os.wait4), its time the wall clock around it. Printed:
- `checkbench generate` then `checkbench judge` of SMALL and LARGE FB-Bench-tagged items
  against an instant local server (checkbench.testing, `--answers instant`, another process):
  time, CPU per item, peak RSS, and the growth of the peak from SMALL to LARGE;
- on a judged run of REPORT items (4 checks each, ~800-character texts, built in a helper
  subprocess through the RunStore API): `checkbench leaderboard --json`; the same leaderboard
  read in columns and computed from lists of pydantic objects (what `leaderboard` did before),
  each in a helper with only the imports it needs, for the ratio; the columns again with the
  bootstrap's index draws (what `stats` drew before counts); `checkbench report`: time, peak
  RSS and page size;
- store bytes per item of both kinds of runs, and the CPU of the store writes of one answer
  committed one by one and group-committed.

    python bench/bench_scale.py [SMALL LARGE [REPORT]]     # default: 2000 20000 100000
    python bench/bench_scale.py --read REPORT              # the judged run's figures only

Targets (issue 13): generate and judge peak under 300 MB at 200,000 items, growing less than
1.5x from 20,000 to 200,000 (`python bench/bench_scale.py 20000 200000`); `leaderboard` of
100,000 items under 5 s and 300 MB; `report` under 1 GB.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic import fbbench_item, fbbench_tags, text

from checkbench.testing import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
JUDGE = "openai:instant"


def _write_bench(path: Path, n: int) -> None:
    """Short FB-Bench-tagged items with one check each (EC weighted, RM any)."""
    with path.open("w") as out:
        for i in range(n):
            ec = i % 2 == 0
            record = {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"Question {i}: what is {i} + {i}?"}],
                "checklist": [{"id": "c1", "text": "gives the right sum", "weight": 1.0}],
                "rule": "weighted" if ec else "any",
                "tags": fbbench_tags(i),
            }
            out.write(json.dumps(record) + "\n")


def build_run(run_dir: Path, n: int, models: int = 1, batch: int = 5000) -> None:
    """A judged FB-Bench-tagged run of n items written through the RunStore API, a batch at a
    time (helper subprocess: `bench_scale.py --build RUN N`)."""
    from checkbench.schema import Response, Usage, Verdict
    from checkbench.store import RunStore

    rng = random.Random(n)
    with RunStore(run_dir) as store:
        for start in range(0, n, batch):
            items = [fbbench_item(i, rng, 4) for i in range(start, min(start + batch, n))]
            store.add_items(items)
            with store.transaction():
                for model in (f"openai:model-{m}" for m in range(models)):
                    for item in items:
                        store.put_response(
                            Response(
                                item_id=item.id,
                                model=model,
                                content=text(rng, 800),
                                usage=Usage(prompt_tokens=300, completion_tokens=200),
                            )
                        )
                        store.put_verdicts(
                            Verdict(
                                item_id=item.id,
                                model=model,
                                judge=JUDGE,
                                check_id=check.id,
                                passed=None if rng.random() < 0.01 else rng.random() < 0.6,
                                reason=text(rng, 100),
                            )
                            for check in item.checklist
                        )


def leaderboard(run_dir: Path, read: str) -> None:
    """The leaderboard read in columns (`store_leaderboard`, what `leaderboard` does), the same
    with every bootstrap group drawn by index (what `stats` did before drawing counts), or from
    lists of pydantic objects (what it did before), imports kept to what each needs (helper
    subprocess: `bench_scale.py --board columns|index|objects RUN`)."""
    from checkbench import stats
    from checkbench.fbbench.scoring import fbbench_leaderboard, store_leaderboard
    from checkbench.store import RunStore

    if read == "index":
        stats._group_mean_draws = stats.means_by_index  # the previous draws, for the ratio
    with RunStore.existing(run_dir) as store:
        if read in ("columns", "index"):
            board = store_leaderboard(store, JUDGE)
        else:
            board = fbbench_leaderboard(store.items(), store.responses(), store.verdicts(JUDGE))
    print(board.model_dump_json())


def store_writes(run_dir: Path, n: int = 4000, workers: int = 32) -> None:
    """CPU per item of the store writes of one answer (its call and its response), each write
    committed at once (no event loop: what every write did before) and group-committed by
    tasks that wait for durability as `generate` does (helper subprocess: `--writes DIR`)."""
    import asyncio

    from checkbench.llm.base import ChatRequest, ChatResult, Message
    from checkbench.schema import Response
    from checkbench.steps.caller import call_record
    from checkbench.store import RunStore

    result = ChatResult(content="An instant answer.", prompt_tokens=5, completion_tokens=4)

    def answer(store: RunStore, i: int) -> None:
        request = ChatRequest(messages=(Message(role="user", content=f"question {i}"),))
        store.record_call(call_record(f"k{i}", "m", "candidate", request, result, None, 0.01))
        store.put_response(Response(item_id=f"q{i}", model="m", content=result.content))

    async def tasks(store: RunStore) -> None:
        jobs = iter(range(n))

        async def worker() -> None:
            for i in jobs:
                await asyncio.sleep(0)  # the call in flight
                answer(store, i)
                await store.durable()

        await asyncio.gather(*(worker() for _ in range(workers)))

    with RunStore(run_dir / "each") as store:
        start = time.process_time()
        for i in range(n):
            answer(store, i)
        each = time.process_time() - start
    with RunStore(run_dir / "grouped") as store:
        start = time.process_time()
        asyncio.run(tasks(store))
        grouped = time.process_time() - start
    print(json.dumps({"each": each / n * 1e3, "grouped": grouped / n * 1e3}))


def _measure(args: list[str]) -> dict[str, float]:
    """Wall time, CPU time (user + system) and peak RSS (MB) of one child process; its output
    is discarded."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        proc = subprocess.Popen(args, env=ENV, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errors.seek(0)
            tail = errors.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"{' '.join(args[:5])}... failed:\n{tail}")
    return {
        "time (s)": wall,
        "CPU (s)": usage.ru_utime + usage.ru_stime,
        "peak RSS (MB)": usage.ru_maxrss / 1024,
    }


def _store_bytes(run_dir: Path) -> int:
    return sum(path.stat().st_size for path in run_dir.glob("run.sqlite*"))


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "checkbench", *args]


def _run_figures(tmp: Path, n: int, base_url: str) -> dict[str, float]:
    """`checkbench generate` then `checkbench judge` of n items: the peak of the two."""
    bench, run_dir = tmp / f"bench-{n}.jsonl", tmp / f"run-{n}"
    _write_bench(bench, n)
    model = ["--base-url", base_url, "--concurrency", "32"]
    generate = _measure(
        _cli("generate", str(bench), "--out", str(run_dir), "--model", "openai:instant", *model)
    )
    judge = _measure(_cli("judge", str(run_dir), "--judge", JUDGE, *model))
    return {
        "generate time (s)": generate["time (s)"],
        "judge time (s)": judge["time (s)"],
        "CPU ms / item (both)": (generate["CPU (s)"] + judge["CPU (s)"]) / n * 1e3,
        "generate peak RSS (MB)": generate["peak RSS (MB)"],
        "judge peak RSS (MB)": judge["peak RSS (MB)"],
        "peak RSS (MB)": max(generate["peak RSS (MB)"], judge["peak RSS (MB)"]),
        "store bytes / item": _store_bytes(run_dir) / n,
    }


def _read_figures(tmp: Path, n: int) -> dict[str, float]:
    run_dir = tmp / f"judged-{n}"
    _measure([sys.executable, __file__, "--build", str(run_dir), str(n)])
    board = _measure(_cli("leaderboard", str(run_dir), "--json"))
    columns = _measure([sys.executable, __file__, "--board", "columns", str(run_dir)])
    index = _measure([sys.executable, __file__, "--board", "index", str(run_dir)])
    objects = _measure([sys.executable, __file__, "--board", "objects", str(run_dir)])
    report = _measure(_cli("report", str(run_dir)))
    return {
        "leaderboard time (s)": board["time (s)"],
        "leaderboard CPU (s)": board["CPU (s)"],
        "leaderboard peak RSS (MB)": board["peak RSS (MB)"],
        "  read in columns: CPU (s)": columns["CPU (s)"],
        "  read in columns: peak RSS (MB)": columns["peak RSS (MB)"],
        "  bootstrap by index: CPU (s)": index["CPU (s)"],
        "  from objects: CPU (s)": objects["CPU (s)"],
        "  from objects: peak RSS (MB)": objects["peak RSS (MB)"],
        "report time (s)": report["time (s)"],
        "report CPU (s)": report["CPU (s)"],
        "report peak RSS (MB)": report["peak RSS (MB)"],
        "report page (MB)": (run_dir / "report.html").stat().st_size / 1e6,
        "store bytes / item": _store_bytes(run_dir) / n,
    }


def _print_read(read: dict[str, float], n: int) -> None:
    print(f"\njudged run of {n:,} items (4 checks each, 1 model)")
    for name, value in read.items():
        print(f"{name:34} {value:12.1f}")
    speed = read["  from objects: CPU (s)"] / read["  read in columns: CPU (s)"]
    memory = read["  from objects: peak RSS (MB)"] / read["  read in columns: peak RSS (MB)"]
    print(f"leaderboard, columns vs objects: {speed:.1f}x less CPU, {memory:.1f}x less memory")
    draws = read["  bootstrap by index: CPU (s)"] / read["  read in columns: CPU (s)"]
    print(f"leaderboard, bootstrap by counts vs by index: {draws:.1f}x less CPU")


TARGETS = (
    "targets: generate/judge peak < 300 MB at 200,000 items and < 1.5x from 20,000 to 200,000; "
    "leaderboard at 100,000 < 5 s and < 300 MB; report < 1 GB"
)


def main() -> None:
    if sys.argv[1:2] == ["--build"]:
        build_run(Path(sys.argv[2]), int(sys.argv[3]))
        return
    if sys.argv[1:2] == ["--board"]:
        leaderboard(Path(sys.argv[3]), sys.argv[2])
        return
    if sys.argv[1:2] == ["--writes"]:
        store_writes(Path(sys.argv[2]))
        return
    if sys.argv[1:2] == ["--read"]:
        read_n = int(sys.argv[2])
        with tempfile.TemporaryDirectory() as tmpdir:
            _print_read(_read_figures(Path(tmpdir), read_n), read_n)
        print(TARGETS)
        return
    sizes = [int(arg) for arg in sys.argv[1:4]]
    small, large = sizes[:2] if len(sizes) >= 2 else (2000, 20000)
    read_n = sizes[2] if len(sizes) == 3 else 100_000
    with tempfile.TemporaryDirectory() as tmpdir, ServerProcess("--answers", "instant") as server:
        tmp, base_url = Path(tmpdir), server.base_url
        runs = {n: _run_figures(tmp, n, base_url) for n in (small, large)}
        read = _read_figures(tmp, read_n)
        writes = json.loads(
            subprocess.run(
                [sys.executable, __file__, "--writes", str(tmp)],
                env=ENV,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
    print("checkbench generate, then judge, against an instant server, concurrency 32")
    print(f"{'':34} {small:>12,} {large:>12,} {'ratio':>7}")
    for name in runs[small]:
        a, b = runs[small][name], runs[large][name]
        print(f"{name:34} {a:12.1f} {b:12.1f} {b / a:6.2f}x")
    _print_read(read, read_n)
    print(
        f"store writes of one answer (call + response), CPU ms: committed one by one "
        f"{writes['each']:.3f}, group commit {writes['grouped']:.3f} "
        f"({writes['each'] / writes['grouped']:.2f}x)"
    )
    print(TARGETS)


if __name__ == "__main__":
    main()
