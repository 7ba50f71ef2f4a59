"""A cascade of judges on FB-Bench's published answers: the embedded model (or any GGUF file:
--judge local:/path/model.gguf) as the cheap judge in log-prob mode, a replay of GPT-4o's
published verdicts as the strong judge (checkbench.testing.replay, served in another process),
at three bands.

    python bench/cascade.py [--items 8] [--max-chars 600] [--judge local]

A seeded sample of the items whose longest prompt (conversation plus answer) is at most
--max-chars characters, each with the answers of the six models whose judgment files are in
../shared/data/fb-bench/model_judgment/gpt-4o-2024-08-06/, becomes a run holding GPT-4o's
verdicts. The cheap judge grades every check once (the first band; the others reuse its
verdicts, and every band reuses the strong judge's decisions of the narrower ones); at each
band, the share of checks escalated to the strong judge, its calls, and the agreement of the
cascade and of the cheap judge alone with GPT-4o (95% cluster-bootstrap intervals over items).
Because the strong judge replays GPT-4o, the cascade agrees with GPT-4o on every escalated
check: the figures show what escalating buys, not what a real strong judge would agree. The
replay is priced as GPT-4o (2.5 / 10 USD per million tokens, the replay's tokens a quarter of
the characters), so the costs are illustrations; its models-file entry names the endpoint
(`endpoint_name`), so a rerun on the same --out resumes with no new call. The instructions
are in English (the Chinese log-prob prompt gets no yes/no token from the embedded model).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_calibration import short_items

from checkbench import api
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.judges.cascade import CascadeSettings
from checkbench.llm import ModelOptions
from checkbench.stats.estimate import Stat
from checkbench.stats.notation import FEW_MARK, FEW_NOTE, few_units
from checkbench.store import RunStore
from checkbench.testing import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"
BANDS = ((0.45, 0.55), (0.4, 0.6), (0.2, 0.8))


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--judge", default="local", help="local or local:/path/model.gguf")
    parser.add_argument("--items", type=int, default=8, help="items sampled (x 6 answers)")
    parser.add_argument("--max-chars", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: temp)")
    return parser.parse_args()


def _stat(st: Stat | None) -> str:
    if st is None or st.value is None:
        return "undefined".ljust(22)
    ci = f"[{st.low:.2f}, {st.high:.2f}]" if st.low is not None else "[-]"
    few = FEW_MARK if few_units(st.units) else ""
    return f"{st.value:.3f} {ci}{few}".ljust(22)


def main() -> None:
    args = _args()
    data = load_fbbench_judgment_dir(args.data)
    sample, eligible = short_items(data, args.items, args.max_chars, args.seed)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-cascade-"))
    with RunStore(out) as store:
        store.add_items(item for item in data.items if item.id in sample)
        for response in data.responses:
            if response.item_id in sample:
                store.put_response(response)
        store.put_verdicts(v for v in data.verdicts if v.item_id in sample)
    reference = data.verdicts[0].judge
    models = sorted({r.model for r in data.responses})
    print(f"cheap judge: {args.judge} (log-prob mode); strong judge: replay of {reference}")
    print(
        f"sample:      {len(sample)} of {eligible} items with prompts <= {args.max_chars} chars "
        f"(seed {args.seed}), {len(sample) * len(models)} answers of {len(models)} models; "
        f"run in {out}"
    )
    with ServerProcess("--replay", str(out), "--replay-judge", reference) as server:
        models_file = out.parent / f"{out.name}-models.toml"
        models_file.write_text(
            f'[models.replay]\nmodel = "{reference}"\nbase_url = "{server.base_url}"\n'
            f'endpoint_name = "replay of {reference}"\n'  # a rerun on --out resumes
            "price = { input = 2.5, output = 10.0 }\n"
        )
        options = ModelOptions(models_file=models_file)
        print(
            f"\n{'band':<10} {'escalated':>9} {'strong calls':>12} {'new':>4} "
            f"{'cascade agreement':<22} {'cheap alone':<22} {'cascade kappa':<22} {'saved USD':>9}"
        )
        for band in BANDS:
            started = time.perf_counter()
            settings = CascadeSettings(band=band, reference=reference, language="en")
            s = api.cascade(out, args.judge, "replay", settings, options=options)
            wall = time.perf_counter() - started
            saved = f"{s.saved_usd:.4f}" if s.saved_usd is not None else "-"
            print(
                f"{band[0]:.2f}-{band[1]:.2f} {s.escalated_share:>9.3f} "
                f"{s.escalated_replies:>5} of {s.replies:<4} {s.strong_calls:>4} "
                f"{_stat(s.agreement.agreement)} {_stat(s.cheap_agreement.agreement)} "
                f"{_stat(s.agreement.kappa)} {saved:>9}   ({wall:.0f} s, {s.checks} checks)"
            )
        stats = server.stats()
    print(f"\nreplay server: {stats['answered']} answers; escalated = share of checks")
    print(f"{FEW_NOTE} (the intervals resample the {len(sample)} items)")


if __name__ == "__main__":
    main()
