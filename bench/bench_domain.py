"""The Conv-to-Bench domain filter against FB-Bench's task labels.

Each of FB-Bench's 591 samples becomes a logged conversation (query, first reply, feedback,
second reply where the dataset has one); its task type is the truth: "Mathematics" is the math
domain, "Coding" the coding one. The build's first tier (topic clusters of first user messages,
plus the conversations whose own first message names the domain, `TopicConfig.message_matches`)
runs as `convbench build --domain D` runs it, with the built-in vocabularies (not fitted to
this file; math adds the form of its text, `convbench.forms`: notation in any language);
precision and recall of the kept conversations are printed per domain with n and a 95% Wilson
interval, with the number of clusters formed and kept, and for a domain with a form the
precision and recall of that signal alone (notation in the first user message). Tier 1
leans to recall; the precision is the zero-shot check's job (tier 2, a model call per kept
conversation): with `--model SPEC` (e.g. `local`, or an OpenAI-compatible model) it runs too
and the two tiers are printed together. `--limit N` takes the first N conversations (a small log).

    python bench/bench_domain.py [--dataset FILE] [--domains math,coding] [--limit N]
        [--model SPEC]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from scipy.stats import binomtest

from checkbench.convbench.candidate import Candidate
from checkbench.convbench.decisions import BuildStages
from checkbench.convbench.domain import check_domain, describe
from checkbench.convbench.first_pass import first_pass
from checkbench.convbench.forms import FORMS
from checkbench.convbench.logs import stream_logs
from checkbench.convbench.markers import Markers
from checkbench.convbench.spec import BuildSpec
from checkbench.convbench.vocab import load_vocabulary
from checkbench.llm import open_backend
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.store import RunStore

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fb-bench"
TASK = {"math": "Mathematics", "coding": "Coding"}


def _rate(hits: int, n: int) -> str:
    if not n:
        return "n/a (n=0)"
    low, high = binomtest(hits, n).proportion_ci(method="wilson")
    return f"{hits / n:.2f} [{low:.2f}, {high:.2f}] (n={n})"


def write_log(samples: list[dict], path: Path) -> dict[str, str]:
    """The samples as an OpenAI-format log; conversation id -> task type."""
    truth = {}
    with path.open("w", encoding="utf-8") as log:
        for index, sample in enumerate(samples):
            turns = [sample["user_query"], sample["origin_first_response"], sample["feedback"]]
            if sample.get("reference_second_response"):
                turns.append(sample["reference_second_response"])
            roles = ["user", "assistant"] * 2
            messages = [{"role": r, "content": t} for r, t in zip(roles, turns, strict=False)]
            conversation_id = f"fb-{index}"
            truth[conversation_id] = sample["task_type"]
            log.write(json.dumps({"id": conversation_id, "messages": messages}) + "\n")
    return truth


def _tier2(spec: BuildSpec, kept: list[str], log: Path, run: Path) -> set[str]:
    """The conversations the zero-shot check keeps among those tier 1 kept."""
    wanted = set(kept)
    candidates = [
        Candidate(c, None)
        for c in stream_logs([log], "auto", strict=False, limit=None)
        if c.id in wanted
    ]
    backend = open_backend(spec.model)
    domain = spec.domain or ""

    async def run_it() -> set[str]:
        with RunStore(run) as store:
            model = StepModel(backend, Caller(store))
            build = BuildStages(store, model, spec.settings, ProgressSink())
            try:
                kept = await build.decide(
                    "domain", candidates, lambda b, c: check_domain(b, c, describe(domain))
                )
            finally:
                await backend.aclose()
            return {candidate.conversation.id for candidate, _ in kept}

    return asyncio.run(run_it())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATA / "fb_bench_dataset_v3.json")
    parser.add_argument("--domains", default="math,coding")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--model", default=None, help="also run tier 2 with this model")
    args = parser.parse_args()
    samples = json.loads(args.dataset.read_text(encoding="utf-8"))[: args.limit]
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "fb-bench.jsonl"
        truth = write_log(samples, log)
        firsts = {f"fb-{index}": sample["user_query"] for index, sample in enumerate(samples)}
        for domain in args.domains.split(","):
            spec = BuildSpec(logs=[log], domain=domain, model=args.model or "local")
            with first_pass(spec, [log], load_vocabulary(domain), Markers()) as cheap:
                kept = list(cheap.chosen)
                topics = cheap.topics
            relevant = {cid for cid, task in truth.items() if task == TASK[domain]}
            hits = len(relevant & set(kept))
            assert topics is not None
            clusters = f"{topics.k} clusters, {sum(c.kept for c in topics.clusters)} kept"
            print(
                f"{domain} tier 1 ({len(truth)} conversations, {clusters}): kept {len(kept)}, "
                f"precision {_rate(hits, len(kept))}, recall {_rate(hits, len(relevant))}"
            )
            if (form := FORMS.get(domain)) is not None:
                noted = {cid for cid, text in firsts.items() if form(text).notation}
                hits = len(relevant & noted)
                print(
                    f"{domain} form alone (notation in the first message): kept {len(noted)}, "
                    f"precision {_rate(hits, len(noted))}, recall {_rate(hits, len(relevant))}"
                )
            if args.model:
                passed = _tier2(spec, kept, log, Path(scratch) / f"run-{domain}")
                hits = len(relevant & passed)
                print(
                    f"{domain} tiers 1+2 ({args.model}): kept {len(passed)}, "
                    f"precision {_rate(hits, len(passed))}, recall {_rate(hits, len(relevant))}"
                )


if __name__ == "__main__":
    main()
