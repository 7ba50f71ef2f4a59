"""Human labels (`view RUN --annotate`): how long the label queue takes to build on a large
run, and how many labels a second the store and the served page keep.

The run: N synthetic FB-Bench items (default 2,000) answered by three models, four checks
each (24,000 checks at the default), judged by a text judge and a log-prob judge (P(yes)) that
disagree on about a tenth of the checks, plus a calibration of the log-prob judge graded
into the run. Printed, side by side in one process:

- the queue's build time, and reading the same verdicts with `RunStore.verdicts` (what any
  judge command pays to read them) as the yardstick: queue / read;
- labels per second kept by `store.labels.put_label` (a verdict row and a label record, one
  transaction each) against one verdict row committed alone: put_label / put_verdicts;
- labels per second through the server (`checkbench view --annotate` in another process, one
  POST at a time with the page's token, as a person's clicks come).

    python bench/bench_labels.py [--items N] [--labels M]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from synthetic import fbbench_item

from checkbench.judges.label_queue import build_queue
from checkbench.judges.reference import CALIBRATION_RECORD
from checkbench.schema import Response, Verdict
from checkbench.store import RunStore
from checkbench.store.labels import new_label, put_label

MODELS = ("model-a", "model-b", "model-c")


def build(run_dir: Path, n: int) -> int:
    """Write the run; return its number of checks."""
    rng = random.Random(0)
    items = [fbbench_item(i, rng, 4) for i in range(n)]
    verdicts = []
    with RunStore(run_dir) as store:
        store.add_items(items)
        with store.transaction():
            for item in items:
                for model in MODELS:
                    store.put_response(Response(item_id=item.id, model=model, content="answer"))
                    for check in item.checklist:
                        key = {"item_id": item.id, "model": model, "check_id": check.id}
                        p = rng.random()
                        text = p >= 0.5 if rng.random() > 0.1 else p < 0.5
                        calibrated = min(1.0, p * 1.1)
                        verdicts += [
                            Verdict(judge="text", passed=text, **key),
                            Verdict(judge="lp", passed=p >= 0.5, p_yes=p, **key),
                            Verdict(
                                judge="lp#cal", passed=calibrated >= 0.5, p_yes=calibrated, **key
                            ),
                        ]
        store.put_verdicts(verdicts)
        store.put_record(CALIBRATION_RECORD, "lp#cal", {"judge": "lp"})
    return n * len(MODELS) * 4


def timed(action, rounds: int = 3) -> float:  # type: ignore[no-untyped-def]
    """The best of `rounds` wall times of `action()`, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def store_rates(run_dir: Path, labels: int) -> tuple[float, float]:
    """(labels/s by put_label, single verdicts/s by put_verdicts) on the run's first checks."""
    with RunStore.existing(run_dir, writer=True) as store:
        units = [(e.item_id, e.model, e.check_id) for e in build_queue(store)[:labels]]
        start = time.perf_counter()
        for item_id, model, check_id in units:
            put_label(
                store,
                new_label("bench", item_id=item_id, model=model, check_id=check_id, passed=True),
            )
        labelled = len(units) / (time.perf_counter() - start)
        start = time.perf_counter()
        for item_id, model, check_id in units:
            verdict = Verdict(
                item_id=item_id, model=model, judge="one", check_id=check_id, passed=True
            )
            with store.transaction():
                store.put_verdicts([verdict])
        alone = len(units) / (time.perf_counter() - start)
    return labelled, alone


def served_rate(run_dir: Path, labels: int) -> tuple[float, float]:
    """(labels/s through `view --annotate`, seconds until the server answered its first page)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "checkbench",
            "view",
            str(run_dir),
            "--port",
            "0",
            "--annotator",
            "web",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
        assert url, "no address from checkbench view"
        base = url.group(0)
        with httpx.Client(timeout=60) as client:
            token = re.search(r'"token":"([^"]+)"', client.get(base + "annotate").text)
            assert token
            queue = client.get(base + "api/annotate/queue", params={"limit": 100}).json()
            ready = time.perf_counter() - start
            headers = {"X-CSRF-Token": token.group(1), "Origin": base.rstrip("/")}
            entries = []
            for offset in range(0, labels, 100):
                page = client.get(
                    base + "api/annotate/queue", params={"offset": offset, "limit": 100}
                )
                entries += page.json()["entries"]
            start = time.perf_counter()
            for e in entries[:labels]:
                body = {k: e[k] for k in ("item_id", "model", "sample", "check_id")}
                sent = client.post(
                    base + "api/annotate/label", json={**body, "passed": False}, headers=headers
                )
                assert sent.status_code == 200, sent.text
            rate = min(labels, len(entries)) / (time.perf_counter() - start)
            assert queue["total"] > 0
    finally:
        proc.terminate()
        proc.wait(10)
    return rate, ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--labels", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        checks = build(run_dir, args.items)
        with RunStore.existing(run_dir) as store:
            queue_s = timed(lambda: build_queue(store))
            read_s = timed(lambda: [store.verdicts(j) for j in ("text", "lp", "lp#cal")])
            queue = build_queue(store)
        tiers = [sum(e.tier == t for e in queue) for t in range(4)]
        print(
            f"run: {args.items} items x {len(MODELS)} models x 4 checks = {checks} checks, 3 judges"
        )
        print(
            f"queue: {len(queue)} entries; by tier (judges disagree, uncertain P(yes), "
            f"samples disagree, rest): {tiers}"
        )
        print(
            f"queue build: {queue_s:.3f} s; reading the same verdicts: {read_s:.3f} s; "
            f"queue/read {queue_s / read_s:.2f}"
        )
        labelled, alone = store_rates(run_dir, args.labels)
        print(
            f"store: {labelled:,.0f} labels/s (put_label); {alone:,.0f} verdicts/s alone; "
            f"ratio {labelled / alone:.2f}"
        )
        served, ready = served_rate(run_dir, args.labels)
        print(
            f"served: {served:,.0f} labels/s over HTTP, one POST at a time; first queue page "
            f"after {ready:.1f} s"
        )
        print(
            json.dumps(
                {
                    "checks": checks,
                    "queue_s": queue_s,
                    "read_s": read_s,
                    "labels_per_s": labelled,
                    "served_labels_per_s": served,
                }
            )
        )


if __name__ == "__main__":
    main()
