"""Throughput and memory of the topic filter: ingest, embed, cluster, keywords, assignments.

Writes synthetic multi-turn conversations on a dozen topics to a temporary JSONL file, then
streams the first 20,000 and all 100,000 of them through the pipeline, each run in its own
process so that its peak RSS (ru_maxrss) is its own. Prints conversations per second per stage
and overall, and the peak-memory ratio between the two sizes (flat memory: close to 1).

`--chinese` instead measures the embedders on Chinese text: on the FB-Bench queries (beside
the project, mostly Chinese, labelled with 8 task types), how often a same-task pair is more
similar than a pair of different tasks (pair AUC) and how often a query's nearest neighbour
has its task (1-NN), for wordllama, the Han character n-grams, and the default `auto`.

    python bench/bench_topics.py [--n 100000] [--small 20000]
    python bench/bench_topics.py --chinese
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from checkbench.convbench.embed import WordLlamaEmbedder, make_embedder
from checkbench.convbench.ingest import iter_conversations
from checkbench.convbench.topics import cluster_topics
from checkbench.convbench.vocab import load_vocabulary

TOPICS = {
    "python": "python function|list comprehension|pandas dataframe|TypeError|decorator|pip "
    "install|async await|class inheritance|unit test with pytest|virtual environment",
    "web": "javascript promise|react component|css flexbox|html form|node express server|"
    "fetch api|typescript interface|npm package|dom event listener|webpack config",
    "sql": "sql query|join two tables|postgres index|group by clause|mysql error|database "
    "schema|primary key|stored procedure|sqlite file|query optimization",
    "algebra": "quadratic equation|solve for x|factor the polynomial|linear equation|"
    "simplify the expression|system of equations|inequality|roots of the equation|"
    "algebraic fraction|expand the brackets",
    "calculus": "derivative of the function|integral from 0 to 1|limit as x approaches|chain "
    "rule|taylor series|partial derivative|integration by parts|critical points|area under the "
    "curve|differential equation",
    "poems": "poem about the sea|rhyming poem|haiku|sonnet about love|poem with four stanzas|"
    "free verse poem|limerick|poem for my mother|poem about autumn|ballad",
    "stories": "short story|fantasy story with a dragon|plot twist|main character|bedtime "
    "story|science fiction story|opening chapter|dialogue between two characters|villain "
    "backstory|mystery story",
    "cooking": "recipe for lasagna|vegan dinner|bake sourdough bread|substitute for eggs|"
    "slow cooker chicken|marinade for steak|gluten free cake|meal prep ideas|spicy curry|"
    "homemade pasta",
    "travel": "trip to japan|itinerary for paris|cheap flights|visa requirements|backpacking "
    "in europe|hotel near the beach|road trip route|packing list|best time to visit|travel "
    "insurance",
    "health": "lower back pain|sleep better|healthy diet|workout routine|headache and fever|"
    "lose weight|blood pressure|vitamin d|anxiety symptoms|stretching exercises",
    "business": "marketing plan|email to my boss|business proposal|startup pitch|sales "
    "strategy|resume summary|linkedin post|meeting agenda|customer complaint|quarterly report",
    "history": "world war two|roman empire|french revolution|cold war|ancient egypt|industrial "
    "revolution|american civil war|ming dynasty|fall of constantinople|renaissance art",
}
OPENERS = ["Can you help me with", "Please explain", "I need", "Write about", "Question:", "Hi!"]
PASTE_SHARE = 0.25
FOLLOW_UPS = ["Thanks, can you make it shorter?", "That is wrong, try again.", "More detail."]
SIZE_KB = 1024  # ru_maxrss is in KiB on Linux
_END = object()


def paste(rng: random.Random, phrases: list[str]) -> str:
    """A pasted text or code block: topic phrases mixed with fresh identifiers and numbers,
    so that the vocabulary keeps growing as in real logs."""
    words = " ".join(rng.choices(phrases, k=rng.randint(20, 200))).split()
    for i in rng.sample(range(len(words)), len(words) // 10):
        words[i] = f"{rng.choice(['var', 'x', 'id', 'tmp'])}_{rng.getrandbits(32):x}"
    return " ".join(words)


def write_corpus(path: Path, n: int, seed: int = 0) -> None:
    """n OpenAI-format chats: 1-3 user turns, assistant replies of a few hundred characters,
    and a quarter of the first messages carrying a paste of 0.3-3 KB (see `paste`)."""
    rng = random.Random(seed)
    pools = {topic: phrases.split("|") for topic, phrases in TOPICS.items()}
    names = list(pools)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            topic = rng.choice(names)
            ask = f"{rng.choice(OPENERS)} {' and '.join(rng.sample(pools[topic], 2))}?"
            if rng.random() < PASTE_SHARE:
                ask += "\n\n" + paste(rng, pools[topic])
            messages = [{"role": "user", "content": ask}]
            for _ in range(rng.randint(0, 2)):
                reply = " ".join(rng.choices(pools[topic], k=rng.randint(10, 40)))
                messages += [
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": rng.choice(FOLLOW_UPS)},
                ]
            handle.write(json.dumps({"id": f"c{i}", "messages": messages}) + "\n")


class _TimedIterator:
    """Iterates over `inner`, adding up the seconds spent producing items."""

    def __init__(self, inner: Iterable[Any]) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __iter__(self) -> Iterator[Any]:
        iterator = iter(self.inner)
        while True:
            start = time.perf_counter()
            item = next(iterator, _END)
            self.seconds += time.perf_counter() - start
            if item is _END:
                return
            yield item


def worker(path: Path, n: int) -> dict[str, float]:
    """Run the pipeline on the first n conversations; stage seconds and peak RSS in MiB."""
    start = time.perf_counter()
    embedder = WordLlamaEmbedder()
    vocabulary = load_vocabulary("coding", "math")
    load_s = time.perf_counter() - start
    base_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / SIZE_KB
    conversations = _TimedIterator(islice(iter_conversations(path), n))
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        report = cluster_topics(
            conversations,
            embedder,
            vocabulary,
            assignments=Path(scratch) / "assignments.jsonl",
        )
    total = time.perf_counter() - start
    t = report.timings
    return {
        "n": report.n,
        "k": report.k,
        "kept": report.kept,
        "load_s": load_s,
        "ingest_s": conversations.seconds,
        "embed_s": t["embed"],
        "spill_s": t["stream"] - conversations.seconds,
        "cluster_s": t["choose_k"] + t["fit"],
        "keywords_s": t["keywords"],
        "assign_s": t["assign"],
        "total_s": total,
        "base_mib": base_mib,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / SIZE_KB,
    }


def run_worker(path: Path, n: int) -> dict[str, float]:
    """The worker in a fresh process, so peak memory is measured per size."""
    done = subprocess.run(
        [sys.executable, __file__, "--worker", str(n), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def show(result: dict[str, float]) -> None:
    n = result["n"]
    print(f"\n{n:,} conversations: k={result['k']}, kept {result['kept']:,}")
    for stage in ("ingest", "embed", "spill", "cluster", "keywords", "assign", "total"):
        seconds = result[f"{stage}_s"]
        print(f"  {stage:<9} {seconds:7.2f} s  {n / max(seconds, 1e-9):>10,.0f} conv/s")
    print(f"  (model load {result['load_s']:.2f} s, not counted)")
    print(f"  peak RSS {result['peak_mib']:.0f} MiB (after loading: {result['base_mib']:.0f} MiB)")


FB_BENCH = Path(__file__).resolve().parents[2] / "shared/data/fb-bench/fb_bench_dataset_v3.json"


def chinese() -> None:
    """Same-task separation of the FB-Bench queries per embedder (see the module docstring)."""
    from sklearn.metrics import roc_auc_score

    from checkbench.convbench.embed import HanCharEmbedder

    samples = json.loads(FB_BENCH.read_text(encoding="utf-8"))
    texts = [sample["user_query"][:2000] for sample in samples]
    labels = np.array([sample["task_type"] for sample in samples])
    same = np.equal.outer(labels, labels)[np.triu_indices(len(texts), 1)]
    print(f"{len(texts)} FB-Bench queries, {len(set(labels))} task types")
    for embedder in (WordLlamaEmbedder(), HanCharEmbedder(), make_embedder("auto")):
        if hasattr(embedder, "fit"):
            embedder.fit(texts)
        vectors = embedder.embed(texts)
        sims = vectors @ vectors.T
        auc = roc_auc_score(same, sims[np.triu_indices(len(texts), 1)])
        np.fill_diagonal(sims, -np.inf)
        nearest = float(np.mean(labels[sims.argmax(axis=1)] == labels))
        print(f"  {embedder.name:<55} pair AUC {auc:.3f}  1-NN {nearest:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=20_000)
    parser.add_argument("--chinese", action="store_true", help="measure embedders on Chinese")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.chinese:
        chinese()
        return
    if args.worker:
        print(json.dumps(worker(args.path, args.worker)))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "conversations.jsonl"
        start = time.perf_counter()
        write_corpus(path, args.n)
        size_mib = path.stat().st_size / 2**20
        seconds = time.perf_counter() - start
        print(f"wrote {args.n:,} conversations ({size_mib:.0f} MiB) in {seconds:.1f} s")
        small, large = run_worker(path, args.small), run_worker(path, args.n)
    show(small)
    show(large)
    growth = (large["peak_mib"] - large["base_mib"]) / max(small["peak_mib"] - small["base_mib"], 1)
    print(f"\npeak RSS {args.n:,} / {args.small:,}: {large['peak_mib'] / small['peak_mib']:.2f}")
    print(f"pipeline memory above the loaded model, {args.n:,} / {args.small:,}: {growth:.2f}")


if __name__ == "__main__":
    main()
