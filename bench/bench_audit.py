"""`checkbench audit` on the published FB-Bench judgments and on a 27-model synthetic run.

1. The judgment files in ../shared/data/fb-bench (or the folder given) are imported into a
   temporary run and audited: how many checks every model passes or fails, the other flags,
   separability (from the leaderboard's intervals, and paired), rank stability and the
   effective number of checks before and after leaving the flagged checks out, Kendall tau_b
   of the full and refined leaderboards, and the audit's time beside the leaderboard's (the
   ratio moves less with the machine's load than either time).
2. The same items answered by 27 synthetic models (verdicts drawn from a 2PL model: abilities
   spread evenly, discriminations and difficulties drawn per check; about 43,000 verdicts),
   audited the same way: the time it takes, beside the leaderboard's.

    python bench/bench_audit.py [JUDGMENT_DIR]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from checkbench import api
from checkbench.audit.run import AuditReport
from checkbench.schema import Response, Verdict
from checkbench.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
JUDGMENTS = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"
SYNTHETIC_MODELS = 27


def _timed(call) -> tuple[object, float]:
    start = time.perf_counter()
    found = call()
    return found, time.perf_counter() - start


def _figure(report: AuditReport, name: str) -> str:
    full, refined = getattr(report.full, name), getattr(report.refined, name)

    def shown(f) -> str:
        if f.value is None:
            return f"- ({f.note})"
        interval = "" if f.low is None else f" [{f.low:.3f}, {f.high:.3f}]"
        return f"{f.value:.3f}{interval}"

    return f"  {name:<22} full {shown(full):<28} refined {shown(refined)}  (n = {full.n} {full.of})"


def _print(label: str, report: AuditReport, audit_s: float, board_s: float) -> None:
    print(
        f"{label}: {len(report.models)} models, {report.items} items, {report.checks} checks, "
        f"{report.verdicts} verdicts"
    )
    print(f"  flags: {report.flags}; flagged checks {report.flagged_checks}")
    print(
        f"  passed by every model: {report.flags.get('all-pass', 0)}, failed by every model: "
        f"{report.flags.get('all-fail', 0)}, negative: {report.flags.get('negative', 0)}"
    )
    for name in ("separability", "paired_separability", "rank_stability", "effective_checks"):
        print(_figure(report, name))
    r = report.refinement
    tau = r.leaderboard_tau
    print(
        f"  refined: {r.checks_dropped} checks dropped, {r.items_changed} items changed, "
        f"{r.items_kept_whole} kept whole; tau_b full vs refined leaderboard "
        f"{tau.value if tau.value is None else round(tau.value, 3)} ({tau.note})"
    )
    if report.irt is not None:
        print(
            f"  IRT: {report.irt.checks} checks, {report.irt.iterations} iterations, "
            f"converged {report.irt.converged}"
        )
    print(
        f"  audit {audit_s:.2f} s, leaderboard {board_s:.2f} s, audit/leaderboard "
        f"{audit_s / board_s:.2f}"
    )


def _synthetic(source: Path, run_dir: Path, models: int, seed: int = 0) -> None:
    """The source run's items answered by `models` models, verdicts drawn from a 2PL model."""
    rng = np.random.default_rng(seed)
    with RunStore.existing(source) as store:
        items = store.items()
    theta = np.linspace(-2, 2, models)
    with RunStore(run_dir) as store:
        store.add_items(items)
        with store.transaction():
            for m in range(models):
                for it in items:
                    store.put_response(Response(item_id=it.id, model=f"model-{m:02d}", content="x"))
        verdicts = []
        for it in items:
            a = rng.normal(1.0, 0.6, len(it.checklist))
            b = rng.normal(0.0, 1.2, len(it.checklist))
            p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
            passed = rng.random(p.shape) < p
            for k, check in enumerate(it.checklist):
                for m in range(models):
                    verdicts.append(
                        Verdict(
                            item_id=it.id,
                            model=f"model-{m:02d}",
                            judge="synthetic",
                            check_id=check.id,
                            passed=bool(passed[k, m]),
                        )
                    )
        store.put_verdicts(verdicts)


def main() -> None:
    judgments = Path(sys.argv[1]) if len(sys.argv) > 1 else JUDGMENTS
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "published"
        _, import_s = _timed(lambda: api.import_fbbench_judgments(judgments, run))
        print(f"imported {judgments} in {import_s:.1f} s")
        api.audit(run)  # imports warmed up: what follows times the audit, not Python's imports
        report, audit_s = _timed(lambda: api.audit(run))
        _, board_s = _timed(lambda: api.leaderboard(run))
        _print("published FB-Bench judgments", report, audit_s, board_s)

        synthetic = Path(tmp) / "synthetic"
        _synthetic(run, synthetic, SYNTHETIC_MODELS)
        report, audit_s = _timed(lambda: api.audit(synthetic))
        _, board_s = _timed(lambda: api.leaderboard(synthetic))
        _print(f"synthetic, {SYNTHETIC_MODELS} models", report, audit_s, board_s)


if __name__ == "__main__":
    main()
