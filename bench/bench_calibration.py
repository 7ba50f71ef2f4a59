"""A cheap judge against GPT-4o on FB-Bench's published answers, uncalibrated and calibrated.

The embedded model (or any GGUF file: --judge local:/path/model.gguf) judges, in log-prob mode,
a seeded sample of the published answers of the six models whose judgment files are in
../shared/data/fb-bench/model_judgment/gpt-4o-2024-08-06/ (every model's answer to each sampled
item). Its verdicts are compared with GPT-4o's published ones: per-check agreement and the model
ranking, before and after a calibration fitted on a seeded half of the sampled items and
measured on the other half only. Prints the model used, tokens and seconds per judged answer.

    python bench/bench_calibration.py [--items 4] [--max-chars 600] [--judge local]

The sample is drawn among items whose longest prompt (conversation plus answer) is at most
--max-chars characters, because the judge reads every token of it for each answer; the
figures therefore describe short items only. The instructions are in English (the Chinese
log-prob prompt gets no yes/no token from the embedded model).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.judges.calibration import CalibrationFit, fit_calibration
from checkbench.judges.checklist import JudgeSettings, judge_name
from checkbench.judges.reference import ReferenceAgreement, reference_agreement
from checkbench.judges.stage import judge_responses
from checkbench.llm import open_backend, parse_model_spec
from checkbench.stats.estimate import Stat
from checkbench.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judge", default="local", help="local or local:/path/model.gguf")
    parser.add_argument("--items", type=int, default=4, help="items sampled (x 6 answers)")
    parser.add_argument("--max-chars", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--b", type=int, default=1000, help="bootstrap draws")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: temp)")
    return parser.parse_args()


def short_items(data, n: int, max_chars: int, seed: int) -> tuple[list[str], int]:
    """A seeded draw of `n` item ids whose longest conversation plus answer fits `max_chars`
    (the embedded judge's context), and how many fit."""
    items = {item.id: item for item in data.items}
    longest: dict[str, int] = {}
    for r in data.responses:
        size = sum(len(m.content) for m in items[r.item_id].messages) + len(r.content or "")
        longest[r.item_id] = max(longest.get(r.item_id, 0), size)
    short = sorted(i for i, size in longest.items() if size <= max_chars)
    return sorted(random.Random(seed).sample(short, min(n, len(short)))), len(short)


def _stat(st: Stat, digits: int = 3) -> str:
    if st.value is None:
        return "undefined".ljust(24)
    ci = f"[{st.low:.{digits}f}, {st.high:.{digits}f}]" if st.low is not None else "[-]"
    return f"{st.value:.{digits}f} {ci}".ljust(24)


def _row(label: str, ra: ReferenceAgreement) -> str:
    a, r = ra.agreement, ra.ranking
    return (
        f"  {label:<28} {a.n:>5} {_stat(a.agreement)} {_stat(a.kappa)} "
        f"{_stat(r.spearman)} {_stat(r.kendall_tau_b)} {_stat(r.largest_shift, 1)}"
    )


def main() -> None:
    args = _args()
    data = load_fbbench_judgment_dir(args.data)
    sample, eligible = short_items(data, args.items, args.max_chars, args.seed)
    models = sorted({r.model for r in data.responses})
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-calibration-"))
    store = RunStore(out)
    store.add_items(item for item in data.items if item.id in sample)
    for response in data.responses:
        if response.item_id in sample:
            store.put_response(response)
    reference = data.verdicts[0].judge
    store.put_verdicts(v for v in data.verdicts if v.item_id in sample)
    spec = parse_model_spec(args.judge)
    backend = open_backend(args.judge)
    settings = JudgeSettings(mode="logprob", language="en")
    judge = judge_name(backend, settings)
    print(f"judge model: {backend.name} ({spec.target})")
    print(f"reference:   {reference} (published verdicts), models: {', '.join(models)}")
    print(
        f"sample:      {len(sample)} of {eligible} items with prompts <= {args.max_chars} chars"
        f" (seed {args.seed}), {len(sample) * len(models)} answers; run in {out}"
    )
    started = time.perf_counter()
    summary = asyncio.run(judge_responses(store, backend, settings=settings))
    wall = time.perf_counter() - started
    usage = [u for u in store.usage() if u.role == "judge" and u.model == backend.name]
    calls = sum(u.calls + u.errors for u in usage)
    prompt = sum(u.prompt_tokens for u in usage)
    completion = sum(u.completion_tokens for u in usage)
    answers = summary.total
    verdicts = store.verdicts(judge)
    unscored = sum(v.passed is None for v in verdicts)
    print(
        f"judging:     {answers} answers, {len(verdicts)} checks, {calls} calls "
        f"({summary.cached} cached), {unscored} unscored checks, {wall:.1f} s"
    )
    print(
        f"per answer:  {prompt / answers:.0f} prompt + {completion / answers:.1f} completion "
        f"tokens, {wall / answers:.2f} s; per check {wall / max(1, len(verdicts)):.2f} s"
    )
    p = [v.p_yes for v in verdicts if v.p_yes is not None]
    if p:
        print(
            f"P(yes):      mean {sum(p) / len(p):.3f}, min {min(p):.3f}, max {max(p):.3f}, "
            f"share >= 0.5: {sum(x >= 0.5 for x in p) / len(p):.3f}"
        )
    head = (
        f"  {'':<28} {'n':>5} {'agreement':<24} {'kappa':<24} {'Spearman':<24} "
        f"{'Kendall tau_b':<24} {'max |shift| (pts)':<24}"
    )
    print("\nagainst GPT-4o (values [95% cluster-bootstrap interval over items]):")
    print(head)
    everything = reference_agreement(store, judge, reference, b=args.b, seed=args.seed)
    print(_row("uncalibrated, all sampled", everything))
    for method, decision in (("logistic", "bayes"), ("isotonic", "bayes"), ("logistic", "rate")):
        fit = CalibrationFit(
            judge,
            reference,
            method=method,
            decision=decision,
            name=f"{judge}#{method}-{decision}",
            b=args.b,
            seed=args.seed,
        )
        report = fit_calibration(store, fit)
        print(
            f"  {method} calibration, pass at P >= {report.threshold:.3f} ({decision}): fitted on "
            f"{report.train.items} items ({report.train.verdicts} checks), held out "
            f"{report.test.items} items ({report.test.verdicts} checks)"
        )
        print(_row("  held out, uncalibrated", report.before))
        print(_row("  held out, calibrated", report.after))
    print("\nper model, held out, GPT-4o -> judge calibrated (logistic, rate), score 0-100:")
    for m in report.after.ranking.models:
        print(
            f"  {m.model:<28} {m.reference.value:6.1f} -> {m.judge.value:6.1f}  "
            f"rank {m.reference_rank:.1f} -> {m.judge_rank:.1f}"
        )
    store.close()


if __name__ == "__main__":
    main()
