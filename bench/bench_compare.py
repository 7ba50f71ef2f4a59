"""Paired comparison on the authors' released FB-Bench judgments (6 models x 591 items).

Imports the judgment files into a scratch run, then
1. compares every pair of models: how many pairs have overlapping leaderboard intervals (95%,
   unpaired), and how many of those a paired interval of the delta (95%) separates from 0;
2. times `checkbench compare RUN --baseline A --candidate B` (591 items x 2 models) and
   `checkbench compare RUN --baseline A` (the 5 others against A), each as a fresh process,
   wall clock and the child's CPU (user + system), best of 3.

    python bench/bench_compare.py [JUDGMENTS_DIR]
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

from checkbench import api

JUDGMENTS = Path(__file__).resolve().parents[2] / "shared/data/fb-bench/model_judgment"
REPEATS = 3


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def pairs(run: Path) -> None:
    rows = {row.model: row for row in api.leaderboard(run).scores.rows}
    overlapping = separated = 0
    print(f"{'baseline':28} {'candidate':28} {'leaderboard CIs':>16} {'delta [paired 95%]':>26}")
    for base, cand in combinations(sorted(rows), 2):
        found = api.compare([run], base, cand, api.CompareSettings(top=0))
        overlap = _overlap(rows[base].overall_ci, rows[cand].overall_ci)
        apart = found.ci is not None and (found.ci[0] > 0 or found.ci[1] < 0)
        overlapping += overlap
        separated += overlap and apart
        ci = f"[{found.ci[0]:+.2f}, {found.ci[1]:+.2f}]" if found.ci else "[n too small]"
        print(
            f"{base:28} {cand:28} {'overlap' if overlap else 'apart':>16} "
            f"{found.delta:+7.2f} {ci:>18}  p={found.p_value:.3g}"
        )
    total = len(rows) * (len(rows) - 1) // 2
    print(
        f"\n{overlapping} of {total} pairs have overlapping leaderboard intervals; "
        f"the paired interval excludes 0 for {separated} of them"
    )


def _timed(args: list[str]) -> tuple[float, float]:
    """Best wall and CPU seconds of `checkbench ARGS` as a fresh process."""
    walls, cpus = [], []
    for _ in range(REPEATS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "checkbench", *args], check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(walls), min(cpus)


def timings(run: Path) -> None:
    commands = {
        "compare RUN --baseline A --candidate B (591 x 2)": [
            "compare", str(run), "--baseline", "gpt-4o-2024-05-13",
            "--candidate", "Qwen2.5-72B-Instruct", "--json",
        ],
        "compare RUN --baseline A (5 comparisons, 6 models)": [
            "compare", str(run), "--baseline", "gpt-4o-2024-05-13", "--json",
        ],
        "leaderboard RUN (for scale)": ["leaderboard", str(run), "--json"],
    }  # fmt: skip
    for label, args in commands.items():
        wall, cpu = _timed(args)
        print(f"{label:52} wall {wall:5.2f} s  CPU {cpu:5.2f} s  (best of {REPEATS})")


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else JUDGMENTS / "gpt-4o-2024-08-06"
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(scratch) / "run"
        api.import_fbbench_judgments(source, run)
        pairs(run)
        print()
        timings(run)


if __name__ == "__main__":
    main()
