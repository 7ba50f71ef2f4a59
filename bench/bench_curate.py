"""Conceding versus holding, against FB-Bench's own scenarios.

Each FB-Bench sample is a conversation: the user's query, the first reply, the user's feedback
and a second reply. Error-correction (EC) samples are those where the feedback was right, so a
good second reply concedes; response-maintenance (RM) ones where it was wrong, so a good reply
holds. The dataset's reference second replies (194 of the 591 samples carry one) are such good
replies: here each is classified by `Markers.stance`, and precision and recall of "concede" for
EC and of "hold" for RM are printed with n and a 95% Wilson interval, two ways:

- disputed: the feedback is known to push back (as in every FB-Bench sample), so a reply that
  does not concede holds;
- selection: as `convbench build --curate feedback` selects from a log, where the pushback is
  not known: a hold needs a marker, an affirmation or a refusal, and a reply with neither is
  not selected (counted as such).

With `--replies FILE` (an FB-Bench judgment file, e.g. model_judgment/.../DeepSeek-V3.jsonl)
the same is measured on that model's second replies to all 591 samples; a model that
concedes to wrong feedback (sycophancy) lowers RM recall there, as the dataset intends.

    python bench/bench_curate.py [--dataset FILE] [--replies FILE]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from scipy.stats import binomtest

from checkbench.convbench.markers import Markers

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fb-bench"
SCENARIO = {"Error Correction": "EC", "Response Maintenance": "RM"}
EXPECTED = {"EC": "concede", "RM": "hold"}


def _rate(hits: int, n: int) -> str:
    if not n:
        return "n/a (n=0)"
    low, high = binomtest(hits, n).proportion_ci(method="wilson")
    return f"{hits / n:.2f} [{low:.2f}, {high:.2f}] (n={n})"


def measure(pairs: list[tuple[str, str]], *, disputed: bool) -> Counter[tuple[str, str | None]]:
    """(scenario, stance) counts over (scenario, second reply) pairs."""
    markers = Markers()
    return Counter(
        (scenario, markers.stance(reply, disputed=disputed)) for scenario, reply in pairs
    )


def report(title: str, counts: Counter[tuple[str, str | None]]) -> None:
    print(title)
    for scenario, stance in EXPECTED.items():
        hits = counts[scenario, stance]
        predicted = sum(n for (_, s), n in counts.items() if s == stance)
        actual = sum(n for (s, _), n in counts.items() if s == scenario)
        print(
            f"  {scenario} as {stance}: precision {_rate(hits, predicted)}, "
            f"recall {_rate(hits, actual)}"
        )
    neither = sum(n for (_, s), n in counts.items() if s is None)
    print(f"  neither (not selected): {neither} of {sum(counts.values())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATA / "fb_bench_dataset_v3.json")
    parser.add_argument("--replies", type=Path, default=None)
    args = parser.parse_args()
    samples = json.loads(args.dataset.read_text(encoding="utf-8"))
    sources = [("reference second replies", samples, "reference_second_response")]
    if args.replies is not None:
        records = [
            json.loads(line)
            for line in args.replies.read_text(encoding="utf-8").split("\n")
            if line
        ]
        sources.append((f"second replies of {args.replies.stem}", records, "second_response"))
    for name, records, field in sources:
        pairs = [
            (SCENARIO[record["bench_type"]], record[field])
            for record in records
            if record.get(field)
        ]
        report(f"{name}, disputed:", measure(pairs, disputed=True))
        report(f"{name}, selection:", measure(pairs, disputed=False))


if __name__ == "__main__":
    main()
