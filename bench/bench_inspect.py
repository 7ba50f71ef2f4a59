"""checkbench vs. inspect_ai on the same items against the same instant server, side by side.

Both make 2 calls per item (generate, then one judge call grading every check) against one
instant OpenAI-compatible server in another process, at the same concurrency:

- checkbench: `checkbench run` with an `openai:instant@URL` candidate and judge;
- inspect_ai: bench/inspect_task.py (generate, then `model_graded_qa`) in the inspect venv
  (bench/setup_inspect.sh), with its defaults and with sample logging off.

Each client is one fresh subprocess (start-up included, after one unmeasured warm-up run
each). Printed per client: items/s, CPU ms per item of its process tree (getrusage
RUSAGE_CHILDREN around it), peak RSS (wait4), bytes per item left in its output directories
and written to storage (/proc/PID/io), and calls per item as the server counted them; then
ratios. The machine is shared, so compare the ratios of one run, not figures across runs.

    python bench/bench_inspect.py [--items 2000] [--checks 4] [--concurrency 32]

The server answers a JSON-schema request with an instance of the schema (checkbench's judge)
and a grading prompt with `GRADE: C` (inspect's grader), so neither side re-asks; every other
request gets checkbench.testing's instant answer (with the `total_tokens` inspect requires).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from checkbench.testing import (
    ANSWER,
    Answer,
    OpenAIServer,
    ServerProcess,
    instant_answer,
    priced,
    schema_of,
)

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_VENV = Path.home() / ".cache" / "checkbench" / "inspect-venv"
TASK_FILE = "inspect_task.py"
"""Copied into the working directory: inspect takes a task file's path relative to it."""
INSPECT_VARIANTS = {
    "defaults": [],
    "no-samples": ["--no-log-samples"],
    "no-samples-realtime": ["--no-log-samples", "--no-log-realtime"],
}
WARM_ITEMS = 20


# -- the server -------------------------------------------------------------------------------
def _judge_aware(payload: dict, headers: dict[str, str]) -> Answer:
    if schema_of(payload):
        return instant_answer(payload, headers)
    last = str((payload.get("messages") or [{}])[-1].get("content", ""))
    return 200, priced(payload, f"{ANSWER}\n\nGRADE: C" if "GRADE:" in last else ANSWER)


def _requests_served(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/stats", timeout=30) as answer:
        return int(json.load(answer)["answered"])


# -- measuring a client -----------------------------------------------------------------------
@dataclass
class Client:
    """One client's command, environment, output directories and the check of its results."""

    name: str
    cmd: list[str]
    env: dict[str, str]
    outputs: list[Path] = field(default_factory=list)


@dataclass
class Figures:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    written_bytes: int
    output_bytes: int
    calls: int


def _dir_bytes(dirs: list[Path]) -> int:
    return sum(f.stat().st_size for d in dirs if d.exists() for f in d.rglob("*") if f.is_file())


def _io_written(pid: int) -> int:
    """Bytes the exited (not yet reaped) process sent to storage, less cancelled writes."""
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return 0
    fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    return int(fields.get("write_bytes", 0)) - int(fields.get("cancelled_write_bytes", 0))


def _measure(client: Client, work: Path, base_url: str) -> Figures:
    """Run one client to completion; a failure is one line naming its kept log, and exit 1."""
    log = work / f"{client.name}.log"
    served = _requests_served(base_url)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(
            client.cmd, env=client.env, cwd=work, stdout=out, stderr=subprocess.STDOUT
        )
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        wall = time.perf_counter() - start
        written = _io_written(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        last = lines[-1] if lines else "no output"
        raise SystemExit(f"{client.name} failed (exit {proc.returncode}): {last} (log: {log})")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    calls = _requests_served(base_url) - served
    return Figures(wall, cpu, usage.ru_maxrss / 1024, written, _dir_bytes(client.outputs), calls)


# -- the clients --------------------------------------------------------------------------------
def _write_items(path: Path, n: int, checks: int) -> None:
    with path.open("w") as out:
        for i in range(n):
            question = f"Question number {i}: what is {i} + {i}?"
            checklist = [
                {"id": f"c{k}", "text": f"check {k}: the sum is right"} for k in range(checks)
            ]
            record = {"id": f"q{i}", "messages": [{"role": "user", "content": question}]}
            out.write(json.dumps(record | {"checklist": checklist}) + "\n")


def _checkbench(work: Path, items: Path, base_url: str, concurrency: int, tag: str) -> Client:
    run = work / f"checkbench-run-{tag}"
    spec = f"openai:instant@{base_url}"
    cmd = [sys.executable, "-m", "checkbench", "run", str(items), "--model", spec, "--judge", spec]
    cmd += ["--out", str(run), "--concurrency", str(concurrency)]
    env = os.environ | {"PYTHONPATH": str(REPO), "OPENAI_API_KEY": "bench"}
    return Client(f"checkbench-{tag}", cmd, env, [run])


def _inspect(
    work: Path, venv: Path, items: Path, base_url: str, concurrency: int, variant: str, tag: str
) -> Client:
    logs, data = work / f"inspect-logs-{variant}-{tag}", work / f"inspect-data-{variant}-{tag}"
    cmd = [str(venv / "bin" / "inspect"), "eval", TASK_FILE, "-T", f"items={items}"]
    cmd += ["--model", "openai-api/instant/instant", "-M", "stream=false", "--display", "none"]
    cmd += ["--max-connections", str(concurrency), "--log-dir", str(logs)]
    env = os.environ | {"INSTANT_API_KEY": "bench", "INSTANT_BASE_URL": base_url}
    env |= {"XDG_DATA_HOME": str(data / "share"), "XDG_CACHE_HOME": str(data / "cache")}
    return Client(f"inspect-{variant}-{tag}", cmd + INSPECT_VARIANTS[variant], env, [logs, data])


def _scored_checkbench(run: Path) -> int:
    """Items whose every verdict is scored in a checkbench run."""
    with contextlib.closing(sqlite3.connect(run / "run.sqlite")) as db:
        query = "SELECT COUNT(DISTINCT item_id) FROM verdicts WHERE passed IS NOT NULL"
        return int(db.execute(query).fetchone()[0])


def _store_tables(run: Path) -> dict[str, int]:
    """Bytes of each table of a checkbench run store, its indexes included, largest first."""
    with contextlib.closing(sqlite3.connect(run / "run.sqlite")) as db:
        pages = db.execute(
            "SELECT COALESCE(m.tbl_name, s.name), SUM(s.pgsize) FROM dbstat s"
            " LEFT JOIN sqlite_master m ON m.name = s.name GROUP BY 1 ORDER BY 2 DESC"
        )
        return dict(pages.fetchall())


def _scored_inspect(venv: Path, logs: Path) -> int:
    """Samples scored in the inspect log (inspect exits 0 even when its eval failed)."""
    cmd = [str(venv / "bin" / "python"), str(BENCH / TASK_FILE), "--scored", str(logs)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    return int(out.stdout.strip() or -1) if out.returncode == 0 else -1


def _venv_ok(venv: Path) -> bool:
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import inspect_ai, openai"]
    return python.exists() and subprocess.run(probe, capture_output=True).returncode == 0


def _inspect_version(venv: Path) -> str:
    probe = [str(venv / "bin" / "python"), "-c", "import inspect_ai; print(inspect_ai.__version__)"]
    return subprocess.run(probe, capture_output=True, text=True).stdout.strip()


# -- the run ------------------------------------------------------------------------------------
def _print(runs: dict[str, Figures], warms: dict[str, Figures], n: int, w: int) -> None:
    """Whole-run figures, then the marginal ones (run minus warm-up: start-up cancels out)."""
    head = ("client", "items/s", "CPU ms/item", "marg. it/s", "marg. CPU ms", "peak RSS MB")
    head += ("out B/item", "disk B/item", "calls/item")
    print(f"{head[0]:28}" + "".join(f"{h:>13}" for h in head[1:]))
    for name, f in runs.items():
        warm = warms[name]
        marginal_wall = f.wall_s - warm.wall_s
        marginal = (n - w) / marginal_wall if marginal_wall > 0 else float("nan")
        row = (n / f.wall_s, f.cpu_s / n * 1e3, marginal, (f.cpu_s - warm.cpu_s) / (n - w) * 1e3)
        row += (f.peak_rss_mb, f.output_bytes / n, f.written_bytes / n, f.calls / n)
        print(f"{name:28}" + "".join(f"{v:>13.2f}" if v < 100 else f"{v:>13.0f}" for v in row))
    base = runs["checkbench"]
    for name, f in runs.items():
        if name != "checkbench":
            print(
                f"{name} / checkbench: wall time {f.wall_s / base.wall_s:.2f}x, "
                f"CPU {f.cpu_s / base.cpu_s:.2f}x, "
                f"peak RSS {f.peak_rss_mb / base.peak_rss_mb:.2f}x, "
                f"output bytes {f.output_bytes / max(base.output_bytes, 1):.2f}x, "
                f"disk bytes {f.written_bytes / max(base.written_bytes, 1):.2f}x"
            )


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--checks", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=32)
    default_venv = Path(os.environ.get("CHECKBENCH_INSPECT_VENV", DEFAULT_VENV))
    parser.add_argument("--venv", type=Path, default=default_venv)
    parser.add_argument(
        "--variants", default=",".join(INSPECT_VARIANTS), help="inspect variants, comma-separated"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    args = _args()
    if args.serve:
        OpenAIServer(_judge_aware).serve_forever()
        return
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        if v not in INSPECT_VARIANTS:
            raise SystemExit(
                f"unknown inspect variant {v!r}: choose from {', '.join(INSPECT_VARIANTS)}"
            )
    if variants and not _venv_ok(args.venv):
        raise SystemExit(
            f"inspect_ai environment not found at {args.venv}: run bench/setup_inspect.sh"
            " (or measure checkbench alone with --variants '')"
        )
    n, c = args.items, args.concurrency
    if n <= WARM_ITEMS or c < 1 or args.checks < 1:
        raise SystemExit(f"--items must exceed {WARM_ITEMS}, --concurrency and --checks be >= 1")
    work = Path(tempfile.mkdtemp(prefix="bench-inspect-"))
    shutil.copy(BENCH / TASK_FILE, work / TASK_FILE)
    items, warm = work / "items.jsonl", work / "warm.jsonl"
    _write_items(items, n, args.checks)
    _write_items(warm, WARM_ITEMS, args.checks)
    figures: dict[str, dict[str, Figures]] = {"warm": {}, "run": {}}
    with ServerProcess("--serve", command=[sys.executable, __file__]) as server:
        url = server.base_url
        for tag, source, count in (("warm", warm, WARM_ITEMS), ("run", items, n)):
            client = _checkbench(work, source, url, c, tag)
            figures[tag]["checkbench"] = _measure(client, work, url)
            if (scored := _scored_checkbench(client.outputs[0])) != count:
                raise SystemExit(f"checkbench scored {scored} of {count} items (logs: {work})")
            tables = _store_tables(client.outputs[0])
            for v in variants:
                client = _inspect(work, args.venv, source, url, c, v, tag)
                figures[tag][f"inspect {v}"] = _measure(client, work, url)
                if (scored := _scored_inspect(args.venv, client.outputs[0])) != count:
                    raise SystemExit(f"inspect {v} scored {scored} of {count} (logs: {work})")
    shutil.rmtree(work, ignore_errors=True)
    cmd = f"python bench/bench_inspect.py --items {n} --checks {args.checks} --concurrency {c}"
    cmd += "" if variants else " --variants ''"
    print(f"command: {cmd}")
    print(f"{n} items x {args.checks} checks, concurrency {c} (inspect --max-connections {c})")
    if variants:
        print(
            f"inspect_ai {_inspect_version(args.venv)}; fresh process per client, start-up included"
        )
    else:
        print("checkbench alone (--variants ''); fresh process, start-up included")
    print("the machine is shared (2 cores, others' jobs running): compare the ratios")
    print(f"marginal: (run - warm-up of {WARM_ITEMS} items), so start-up cancels out")
    _print(figures["run"], figures["warm"], n, WARM_ITEMS)
    per_table = ", ".join(f"{name} {size / n:.0f}" for name, size in tables.items())
    print(f"checkbench's store, B/item by table (indexes included): {per_table}")


if __name__ == "__main__":
    main()
