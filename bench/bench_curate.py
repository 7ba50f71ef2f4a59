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
concedes to wrong feedback (sycophancy) lowers RM recall there, as the dataset intends. So it
is measured again on the replies the file's judge found to meet every check (score 1), which
should behave as their scenario asks; they do not all: the judge passes RM replies that open
with a plain concession ("感谢您的指正", "你说得对", then a rewrite), which the markers rightly
call concessions.

With `--signals`, each candidate signal of holding is measured on the same replies as a score
(higher: holds): its AUC for telling RM from EC (95% percentile bootstrap interval, n), and at
the threshold that maximises Youden's J on these very replies (fitted here, so optimistic) the
recall of RM and of EC. The signals read only the conversation, no word list of this file:

- markers: `Markers.stance` (hold 1, neither 0.5, concede 0);
- kept text: how much of the first reply the second keeps (character-trigram containment);
- kept numbers: the share of the first reply's numbers the second repeats (none: 0.5);
- kept answer: whether the first reply's last number appears in the second (none: 0.5);
- length ratio: the second reply's length over the first's;
- feedback echo: how much of the user's feedback the second reply repeats;
- markers, echo where neither: the markers' stance, and the feedback echo for a reply that
  shows none (below a hold, above a concession).

An AUC below 0.5 says the signal points the other way: on the reference replies a holding
reply is a short rebuttal, so it keeps less of the first reply's text than a corrected rewrite.

    python bench/bench_curate.py [--dataset FILE] [--replies FILE] [--signals]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import binomtest, bootstrap
from sklearn.metrics import roc_auc_score, roc_curve

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


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _grams(text: str, n: int = 3) -> set[str]:
    text = re.sub(r"\s+", " ", text.lower())
    return {text[i : i + n] for i in range(max(len(text) - n + 1, 1))}


def _contained(part: str, whole: str) -> float:
    """The share of `part`'s character trigrams found in `whole`."""
    grams = _grams(part)
    return len(grams & _grams(whole)) / len(grams) if grams else 0.0


def _kept_numbers(first: str, second: str) -> float:
    numbers = set(_NUMBER.findall(first))
    return len(numbers & set(_NUMBER.findall(second))) / len(numbers) if numbers else 0.5


def _kept_answer(first: str, second: str) -> float:
    numbers = _NUMBER.findall(first)
    return (1.0 if numbers[-1] in set(_NUMBER.findall(second)) else 0.0) if numbers else 0.5


SIGNALS: dict[str, Callable[[dict[str, str]], float]] = {
    "markers": lambda c: {"hold": 1.0, None: 0.5, "concede": 0.0}[
        Markers().stance(c["second"], disputed=False)
    ],
    "kept text": lambda c: _contained(c["first"], c["second"]),
    "kept numbers": lambda c: _kept_numbers(c["first"], c["second"]),
    "kept answer": lambda c: _kept_answer(c["first"], c["second"]),
    "length ratio": lambda c: len(c["second"]) / max(len(c["first"]), 1),
    "feedback echo": lambda c: _contained(c["feedback"], c["second"]),
    "markers, echo where neither": lambda c: {"hold": 2.0, "concede": -1.0}.get(
        Markers().stance(c["second"], disputed=False) or "",
        _contained(c["feedback"], c["second"]),
    ),
}
"""Candidate signals that the second reply holds (keeps the first answer): higher holds."""


def _auc(holds: np.ndarray, scores: np.ndarray) -> float:
    return float(roc_auc_score(holds, scores)) if 0 < holds.sum() < len(holds) else float("nan")


def signals(title: str, conversations: list[dict[str, str]]) -> None:
    """AUC [95% CI] and the recall of RM and EC at the best threshold, per signal."""
    holds = np.array([c["scenario"] == "RM" for c in conversations])
    print(f"{title}: signals of holding (RM) against conceding (EC), n={len(holds)}")
    for name, signal in SIGNALS.items():
        scores = np.array([signal(c) for c in conversations], dtype=float)
        ci = bootstrap(
            (holds, scores), _auc, paired=True, vectorized=False, n_resamples=1000,
            method="percentile", random_state=np.random.default_rng(0),
        ).confidence_interval  # fmt: skip
        fpr, tpr, cuts = roc_curve(holds, scores)
        best = int(np.argmax(tpr - fpr))
        said = scores >= cuts[best]
        rm, ec = int((said & holds).sum()), int((~said & ~holds).sum())
        print(
            f"  {name}: AUC {_auc(holds, scores):.2f} [{ci.low:.2f}, {ci.high:.2f}]; at "
            f">= {cuts[best]:.3g}: RM recall {_rate(rm, int(holds.sum()))}, "
            f"EC recall {_rate(ec, int((~holds).sum()))}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATA / "fb_bench_dataset_v3.json")
    parser.add_argument("--replies", type=Path, default=None)
    parser.add_argument("--signals", action="store_true", help="measure each signal of holding")
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
        met = [record for record in records if record.get("score") == 1]
        sources.append(
            (f"second replies of {args.replies.stem} meeting every check", met, "second_response")
        )
    for name, records, field in sources:
        pairs = [
            (SCENARIO[record["bench_type"]], record[field])
            for record in records
            if record.get(field)
        ]
        report(f"{name}, disputed:", measure(pairs, disputed=True))
        report(f"{name}, selection:", measure(pairs, disputed=False))
        if args.signals:
            conversations = [
                {
                    "scenario": SCENARIO[record["bench_type"]],
                    "first": record["origin_first_response"],
                    "feedback": record["feedback"],
                    "second": record[field],
                }
                for record in records
                if record.get(field)
            ]
            signals(name, conversations)


if __name__ == "__main__":
    main()
