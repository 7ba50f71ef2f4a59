"""Reliability figures of checkbench, measured against local servers, in one run:

- faults: `checkbench run` against an endpoint that fails one request in three (500, 429,
  malformed JSON, replies slower than --timeout): items lost, calls answered twice, retries;
  then the same command again, which re-asks what was left unscored.
- kills: a `checkbench run` killed with SIGKILL N times at random moments, then rerun to the
  end: calls made again, and differences from an uninterrupted run of the same command.
- bad inputs: every case of the test corpus (tests/cli/input_corpus_*.py): clear one-line errors,
  tracebacks, partial writes.
- concurrent runs: a second `checkbench generate` on a run directory in use.
- key leaks: an endpoint that echoes the Authorization header back (in a 401 and in answers):
  occurrences of the key in what the commands print, in the run store and in the report.

    python bench/reliability.py [--kills N] [--items N] [--seed S]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's checkbench

from checkbench.report.page import read_page  # noqa: E402
from checkbench.store.queries import RESPONSE_BODY  # noqa: E402
from checkbench.testing import OpenAIServer, completion, verdicts  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
KEY = "sk-reliability-0123456789abcdef"
_RESPONSES = f"SELECT item_id, model, {RESPONSE_BODY} FROM responses r"
"""Each response with its body whole (its content may be held by its call)."""


def checkbench(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """`checkbench ARGS` started in a fresh process, as a user would run it."""
    return subprocess.Popen(
        [sys.executable, "-m", "checkbench", *args],
        cwd=cwd,
        env={**ENV, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run `checkbench ARGS` to the end: its exit code and everything it printed."""
    proc = checkbench(*args, cwd=cwd, env=env)
    out, err = proc.communicate(timeout=900)
    return proc.returncode, out + err


def write_bench(path: Path, n: int) -> Path:
    """A benchmark of `n` items with two checks each."""
    checks = [{"id": "c1", "text": "answers"}, {"id": "c2", "text": "is short"}]
    lines = [
        json.dumps(
            {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"question {i}"}],
                "checklist": checks,
            }
        )
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def deterministic(body: dict[str, Any]) -> dict[str, Any]:
    """The same completion for the same request: a candidate's answer, or a judge's verdicts
    (yes or no by the request's hash)."""
    digest = hashlib.sha256(json.dumps(body["messages"]).encode()).hexdigest()
    if "response_format" in body:
        return completion(verdicts(body, "yes" if int(digest, 16) % 3 else "no"))
    return completion(f"answer {digest[:12]}")


def store_rows(run_dir: Path, sql: str) -> list[tuple]:
    with closing(sqlite3.connect(run_dir / "run.sqlite")) as db:
        return db.execute(sql).fetchall()


def outcome(run_dir: Path) -> dict[str, Any]:
    """What a run holds, without timings: each response's text and each verdict."""
    responses = {
        f"{item}/{model}": json.loads(body).get("content")
        for item, model, body in store_rows(run_dir, _RESPONSES)
    }
    judged = "SELECT item_id, model, judge, check_id, passed FROM verdicts"
    verdicts_ = {"/".join(row[:4]): row[4] for row in store_rows(run_dir, judged)}
    return {"responses": responses, "verdicts": verdicts_}


def models(url: str) -> list[str]:
    return ["-m", f"openai:cand@{url}", "-j", f"openai:judge@{url}"]


# ---------------------------------------------------------------- faults


def faults(work: Path, n: int, seed: int) -> list[tuple[str, object]]:
    rng = random.Random(seed)
    injected: Counter[str] = Counter()
    answered: Counter[str] = Counter()

    def answer(body: dict[str, Any], _headers: dict[str, str]) -> tuple:
        roll = rng.random()
        for limit, kind, reply in (
            (0.12, "500", (500, {"error": {"message": "injected"}})),
            (0.20, "429", (429, {"error": {"message": "slow down"}})),
            (0.27, "malformed JSON", (200, "{not json")),
            (0.33, "slower than --timeout", (200, deterministic(body), 1.5)),
        ):
            if roll < limit:
                injected[kind] += 1
                return reply
        answered[json.dumps(body, sort_keys=True)] += 1
        return 200, deterministic(body)

    bench = write_bench(work / "bench.jsonl", n)
    args = ["run", str(bench), "-o", "run", "--timeout", "0.5", "--retries", "8"]
    args += ["--protocol", "conv-to-bench", "--concurrency", "8"]
    with OpenAIServer(answer) as server:
        start = time.monotonic()
        first, _ = finish(*args, *models(server.base_url), cwd=work)
        seconds = time.monotonic() - start
        lost_first = lost(work / "run", n)
        again, _ = finish(*args, *models(server.base_url), cwd=work)
    calls = store_rows(
        work / "run", "SELECT COUNT(*), SUM(attempts), SUM(status = 'ok') FROM calls"
    )
    count, attempts, ok = calls[0]
    return [
        ("items (a candidate answer and 2 judged checks each)", n),
        ("requests the server received", sum(injected.values()) + sum(answered.values())),
        ("faults injected", ", ".join(f"{v} {k}" for k, v in sorted(injected.items()))),
        ("first run: exit code, seconds", f"{first}, {seconds:.1f}"),
        ("items lost after the first run", lost_first),
        ("items lost after running it again", lost(work / "run", n)),
        ("calls answered twice by the server", sum(v - 1 for v in answered.values() if v > 1)),
        ("retried attempts recorded", attempts - count),
        ("calls stored (ok)", f"{count} ({ok}); rerun exit code {again}"),
    ]


def lost(run_dir: Path, n: int) -> int:
    """Items without a usable answer or with a check left unscored."""
    answered = {i for (i,) in store_rows(run_dir, "SELECT item_id FROM responses WHERE ok")}
    unscored = {
        i for (i,) in store_rows(run_dir, "SELECT item_id FROM verdicts WHERE passed IS NULL")
    }
    return n - len(answered - unscored)


# ---------------------------------------------------------------- kills


def kills(work: Path, n: int, times: int, seed: int) -> list[tuple[str, object]]:
    """Each kill lands at a random point of the work left: once the process has made a random
    number of calls, at most half of those an uninterrupted run still had to make."""
    rng = random.Random(seed)
    calls = [0]

    def answer(body: dict[str, Any], _headers: dict[str, str]) -> tuple:
        calls[0] += 1
        return 200, deterministic(body), 0.2

    bench = write_bench(work / "bench.jsonl", n)
    with OpenAIServer(answer) as server:
        args = ["run", str(bench), "--concurrency", "4", *models(server.base_url)]
        code, _ = finish(*args, "-o", "reference", cwd=work)
        reference, calls[0], hit = calls[0], 0, 0
        for _ in range(times):
            proc, before = checkbench(*args, "-o", "killed", cwd=work), calls[0]
            at = rng.randint(1, max(1, (reference - calls[0]) // 2))
            while calls[0] - before < at and proc.poll() is None:
                time.sleep(0.01)
            hit += proc.poll() is None
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
        final, _ = finish(*args, "-o", "killed", cwd=work)
    want, got = outcome(work / "reference"), outcome(work / "killed")
    differ = {
        part: sum(want[part].get(key) != got[part].get(key) for key in want[part] | got[part])
        for part in want
    }
    return [
        ("uninterrupted run: calls, exit code", f"{reference}, {code}"),
        ("SIGKILLs that hit a working process", f"{hit} of {times}"),
        ("calls made again after the kills (in flight when killed)", calls[0] - reference),
        ("rerun to the end: exit code", final),
        ("responses differing from the uninterrupted run", differ["responses"]),
        ("verdicts differing from the uninterrupted run", differ["verdicts"]),
    ]


# ---------------------------------------------------------------- bad inputs


CORPUS_TEST = (
    "tests/cli/test_input_corpus.py::test_a_bad_input_is_one_clear_line_and_writes_nothing"
)


def bad_inputs(work: Path) -> list[tuple[str, object]]:
    """The bad-input corpus's figures. The corpus belongs to the tests, and bench imports no
    test: pytest runs the corpus's test in a child process, whose JUnit XML report holds each
    case's expected exit code and problems (recorded by the test), counted here."""
    report = work / "corpus.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CORPUS_TEST]
        + [f"--junitxml={report}", "-o", "junit_family=xunit1", f"--basetemp={work / 'tmp'}"],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        check=False,  # a failing case is a figure, not an error
    )
    counts: Counter[str] = Counter()
    for case in ElementTree.parse(report).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        counts["cases"] += 1
        if case.find("skipped") is not None:
            counts["skipped"] += 1
            continue
        counts["tried"] += 1
        problems = json.loads(props.get("problems") or '["crash: the test did not finish"]')
        for kind in {problem.split(":", 1)[0] for problem in problems}:
            counts[kind] += 1
        if not problems:
            counts["refused" if props.get("code") != "0" else "accepted"] += 1
        else:
            print(f"  {case.get('name')}: {problems}", file=sys.stderr)
    others = counts["exit code"] + counts["lines"] + counts["unclear"] + counts["crash"]
    return [
        ("cases in the corpus", counts["cases"]),
        ("tried", counts["tried"]),
        ("skipped as root (chmod 000, read-only directories)", counts["skipped"]),
        ("refused with one clear line, exit 2, nothing written", counts["refused"]),
        ("accepted, as legitimately acceptable inputs", counts["accepted"]),
        ("tracebacks", counts["traceback"]),
        ("partial writes", counts["written"]),
        ("other problems (exit code, several lines, unclear)", others),
    ]


# ---------------------------------------------------------------- concurrent runs


def concurrent(work: Path, trials: int) -> list[tuple[str, object]]:
    """The holder's calls are slow until the second writer has been told off, then fast."""
    bench = write_bench(work / "bench.jsonl", 100)
    delay = [0.0]
    refused = named = after = 0
    with OpenAIServer(lambda body, _h: (200, deterministic(body), delay[0])) as server:
        args = ["generate", str(bench), "-m", f"openai:cand@{server.base_url}"]
        args += ["--concurrency", "1"]
        for trial in range(trials):
            run, delay[0] = f"run{trial}", 0.3
            holder = checkbench(*args, "-o", run, cwd=work)
            while not (work / run / ".lock").exists() and holder.poll() is None:
                time.sleep(0.05)
            code, printed = finish(*args, "-o", run, cwd=work)
            refused += code == 2 and len(printed.strip().splitlines()) == 1
            named += f"run directory in use by pid {holder.pid}" in printed
            delay[0] = 0.0
            holder.communicate(timeout=300)
            after += finish(*args, "-o", run, cwd=work)[0] == 0
    return [
        ("second writers started while a run was working", trials),
        ("refused: exit 2, one line", refused),
        ("the line names the holder: 'run directory in use by pid N'", named),
        ("the same command once the holder finished: exit 0", after),
    ]


# ---------------------------------------------------------------- key leaks


def key_leaks(work: Path) -> list[tuple[str, object]]:
    def echo(body: dict[str, Any], headers: dict[str, str]) -> tuple:
        auth = headers.get("Authorization", "")
        if "response_format" in body:
            schema = body["response_format"].get("json_schema", {}).get("schema") or {}
            reasons = {c: {"reason": f"saw {auth}", "verdict": "yes"} for c in schema["properties"]}
            return 200, completion(json.dumps(reasons))
        if "question 0" in json.dumps(body["messages"]):
            return 401, {"error": {"message": f"invalid key {auth}", "key": auth.split()[-1]}}
        return 200, completion(f"your header was {auth} and your key {auth.split()[-1]}")

    bench = write_bench(work / "bench.jsonl", 4)
    env = {"ECHO_KEY": KEY}
    with OpenAIServer(echo) as server:
        spec = ["--api-key-env", "ECHO_KEY"]
        url = f"openai:echo@{server.base_url}"
        printed = [
            finish("generate", str(bench), "-o", "run", "-m", url, *spec, cwd=work, env=env)[1],
            finish("judge", "run", "-j", url, *spec, cwd=work, env=env)[1],
            finish("report", "run", cwd=work, env=env)[1],
        ]
    sent = sum(h.get("Authorization") == f"Bearer {KEY}" for h in server.headers)
    files = [path for path in (work / "run").iterdir() if path.suffix != ".html"]
    stored = b"".join(path.read_bytes() for path in files if path.is_file())
    report = read_page(work / "run" / "report.html")  # packed blocks unpacked: all a reader reaches
    return [
        ("requests that carried the key (the server echoed it)", sent),
        ("occurrences in what the commands printed", sum(text.count(KEY) for text in printed)),
        ("occurrences in the run directory's store files", stored.count(KEY.encode())),
        ("occurrences in report.html", report.count(KEY)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="checkbench-reliability-"))
    sections: dict[str, Callable[[Path], list[tuple[str, object]]]] = {
        "faults": lambda at: faults(at, opts.items, opts.seed),
        "kills": lambda at: kills(at, opts.items, opts.kills, opts.seed),
        "bad inputs": bad_inputs,
        "concurrent runs on one run directory": lambda at: concurrent(at, 3),
        "key leaks": key_leaks,
    }
    try:
        for number, (title, measure) in enumerate(sections.items()):
            (work / str(number)).mkdir()
            start = time.monotonic()
            figures = measure(work / str(number))
            print(f"{title} ({time.monotonic() - start:.0f} s)")
            for label, value in figures:
                print(f"  {label:<58} {value}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
