"""The Ray executor against the local one: `generate` then `judge` of N items (default 2,000)
against the instant server (checkbench.testing's, `--answers instant`, in another process),
each executor into its own run. Prints seconds and items/s per stage and executor, and checks
that both runs stored the same answers and verdicts.

Ray's cost here is its start, the tasks of each pipeline and the pickling of jobs and
results; its gain is spreading the calls over machines, which one machine cannot show.

    python bench/bench_ray.py [N] [--workers W] [--batch-size B] [--address ADDR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from checkbench import api
from checkbench.store import RunStore
from checkbench.testing import ServerProcess


def _write_bench(path: Path, n: int) -> None:
    with path.open("w") as out:
        for i in range(n):
            item = {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"Question {i}: what is {i} + {i}?"}],
                "checklist": [{"id": f"c{k}", "text": f"check {k} holds"} for k in range(3)],
            }
            out.write(json.dumps(item) + "\n")


def _stored(run: Path) -> tuple[list[tuple[str, str, str | None]], list[tuple[str, ...]]]:
    with RunStore.existing(run) as store:
        responses = sorted((r.item_id, r.model, r.content) for r in store.responses())
        verdicts = sorted(
            (v.item_id, v.model, v.check_id, str(v.passed), v.reason) for v in store.verdicts()
        )
    return responses, verdicts


def _timed(label: str, n: int, work: Callable[[], api.StageSummary]) -> float:
    """Run one stage, print its time and rate, and return the seconds it took."""
    start = time.perf_counter()
    summary = work()
    seconds = time.perf_counter() - start
    assert summary.errors == 0 and summary.called == n, summary
    print(f"  {label:<16} {seconds:7.2f} s  {n / seconds:8.1f} items/s", flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--address", default=None, help="a Ray cluster (default: start one)")
    args = parser.parse_args()
    executors: dict[str, api.Executor] = {
        "local": "local",
        "ray": api.RayExecutor(
            address=args.address, workers=args.workers, batch_size=args.batch_size
        ),
    }
    with tempfile.TemporaryDirectory() as tmp, ServerProcess("--answers", "instant") as server:
        base_url = server.base_url
        bench = Path(tmp) / "bench.jsonl"
        _write_bench(bench, args.n)
        candidate, judge = f"openai:instant@{base_url}", f"openai:instant-judge@{base_url}"
        if args.address is None:  # Ray's start, timed apart from the stages
            import ray

            start = time.perf_counter()
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            print(f"ray start: {time.perf_counter() - start:.2f} s")
        totals = {}
        for name, executor in executors.items():
            run = Path(tmp) / name
            print(f"{name} ({args.n} items):")
            totals[name] = _timed(
                "generate",
                args.n,
                lambda run=run, executor=executor: api.generate(
                    bench, [candidate], run, executor=executor
                ),
            ) + _timed(
                "judge",
                args.n,
                lambda run=run, executor=executor: api.judge(run, judge, executor=executor),
            )
        same = _stored(Path(tmp) / "local") == _stored(Path(tmp) / "ray")
        print(f"ray/local time: {totals['ray'] / totals['local']:.2f}x; same results: {same}")
        assert same, "the ray run stored other answers or verdicts than the local one"


if __name__ == "__main__":
    main()
