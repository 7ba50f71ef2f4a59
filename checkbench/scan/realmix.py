"""RealMix (SCAN): fill thin leaves of a taxonomy with synthesized, quality-filtered queries.

Each round, every leaf with fewer than `min_per_leaf` items (counting items tagged with the leaf
or below it) gets one attempt per missing item. An attempt picks, with a seeded generator, one
reference query (a real item tagged with the leaf, else with its nearest tagged ancestor) and up
to three other real queries; the model writes a new query from the reference's tags and the
others' concrete details, then a second call accepts or rejects it (yes/no with a reason).
Accepted queries become items tagged with the leaf (and its ancestors) whose
`meta["realmix"]` holds the provenance: reference id, detail ids, leaf, round, quality reason.
A query that repeats an existing one is rejected as a duplicate. Rounds stop when every leaf has
enough items, when a round accepts nothing, or after `max_rounds`. Leaves with no tagged
reference anywhere on their lineage are reported, not filled.

"Real" items are the input items that RealMix did not make; only they serve as references and
detail sources. Every attempt is a record ("realmix", by candidate key) and every call is cached
with a fixed seed, so a rerun replays the same rounds without new calls.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend
from checkbench.prompts import fence
from checkbench.scan.domains import DOMAIN_FACET, OTHER, TAXONOMY_FACET
from checkbench.scan.paths import TaxonomyError, lineage, normalize_path
from checkbench.scan.tree import Taxonomy
from checkbench.schema import Item, Message
from checkbench.steps.answers import Answer, YesNo, answer_model, text
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import failed_outcome, prompt_request, prompt_tag, query_text
from checkbench.steps.stage import RunTally, StageRun, StageSummary
from checkbench.store import RecordKind, RunStore

ROLE = "realmix"
META_KEY = "realmix"
RECORD_KIND = RecordKind("realmix", dict[str, Any])
"""One synthesis attempt by candidate key: its leaf, query, quality verdict and outcome."""


@dataclass(frozen=True)
class MixSettings:
    """The coverage target and the sizes and sampling of the model's answers."""

    min_per_leaf: int = 5
    max_rounds: int = 3
    details: int = 3
    query_chars: int = 1500
    analysis_chars: int = 300
    new_query_chars: int = 800
    reason_chars: int = 160
    temperature: float = 0.7
    seed: int = 0
    reasks: int = 1


class MixReport(BaseModel):
    """What the rounds did and which leaves are still short."""

    leaves: int
    short_before: int
    short_after: list[str]
    no_reference: list[str]
    rounds: int
    attempts: int
    outcomes: dict[str, int]


@dataclass(frozen=True)
class MixResult:
    """The input items followed by the accepted new ones, and what happened."""

    items: list[Item]
    added: list[Item]
    report: MixReport
    summary: StageSummary
    tally: RunTally | None = None
    """What the store says of the stage's calls, for the CLI to print (set by the API)."""


@dataclass(frozen=True)
class _Attempt:
    leaf: str
    round: int
    index: int

    @property
    def key(self) -> str:
        return f"{self.leaf}#{self.round}.{self.index}"


def _normalized(query: str) -> str:
    return " ".join(query.casefold().split())


@cache
def query_answer(analysis_chars: int, query_chars: int) -> type[Answer]:
    """An analysis of the reference and the other queries, and the new query."""
    return answer_model(
        "NewQuery", analysis=(text(analysis_chars), ""), query=text(query_chars, min_chars=1)
    )


@cache
def quality_answer(reason_chars: int) -> type[Answer]:
    """Whether the new query is usable, with a reason."""
    return answer_model("Quality", reason=(text(reason_chars), ""), verdict=YesNo)


def _check_tags(items: list[Item], taxonomy: Taxonomy) -> None:
    """Every taxonomy tag of every item must be a path of the taxonomy."""
    for item in items:
        for raw in item.tag(TAXONOMY_FACET):
            try:
                known = taxonomy.has(normalize_path(raw))
            except TaxonomyError:
                known = False
            if not known:
                raise InputError(
                    f"item '{item.id}': '{raw}' is not a path of the taxonomy",
                    field="tags.taxonomy",
                )


class _Mix:
    """The items, who is tagged where, and the model calls of one synthesis."""

    def __init__(
        self, model: StepModel, items: list[Item], taxonomy: Taxonomy, settings: MixSettings
    ) -> None:
        self.model, self.taxonomy, self.settings = model, taxonomy, settings
        self.items = list(items)
        self.real = [item for item in items if META_KEY not in item.meta]
        self.seen = {_normalized(item.messages[-1].content) for item in items}

    def count(self, leaf: str) -> int:
        return sum(leaf in map(normalize_path, item.tag(TAXONOMY_FACET)) for item in self.items)

    def references(self, leaf: str) -> list[Item]:
        """Real items tagged with the leaf, else with its nearest ancestor that has some."""
        for node in reversed(lineage(leaf)):
            tagged = [i for i in self.real if node in map(normalize_path, i.tag(TAXONOMY_FACET))]
            if tagged:
                return tagged
        return []

    def _target(self, leaf: str) -> str:
        return fence("capability", f"{leaf}: {self.taxonomy.find(leaf).description}")

    async def attempt(self, job: _Attempt) -> tuple[dict[str, Any], Item | None]:
        """One synthesis and quality check; the record and the accepted item, if any."""
        s = self.settings
        rng = random.Random(f"{s.seed}|{job.key}")
        reference = rng.choice(self.references(job.leaf))
        others = [item for item in self.real if item.id != reference.id]
        details = rng.sample(others, min(s.details, len(others)))
        record: dict[str, Any] = {
            "leaf": job.leaf,
            "round": job.round,
            "reference": reference.id,
            "details": [item.id for item in details],
        }
        values = {
            "target": self._target(job.leaf),
            "reference": fence("reference", query_text(reference, s.query_chars)),
            "tags": fence("tags", "\n".join(reference.tag(TAXONOMY_FACET)) or job.leaf),
            "details": "\n".join(
                fence(f"real request {n}", query_text(item, s.query_chars))
                for n, item in enumerate(details, start=1)
            )
            or "(none)",
        }
        request = prompt_request(
            "scan_realmix",
            values,
            max_tokens=32 + (s.analysis_chars + s.new_query_chars) // 2,
            temperature=s.temperature,
            seed=rng.randrange(2**31),
        )
        answer = query_answer(s.analysis_chars, s.new_query_chars)
        made = await self.model.ask(request, answer, role=ROLE, reasks=s.reasks)
        if made.value is None:
            return record | failed_outcome(made), None
        query = record["query"] = made.value.query
        if _normalized(query) in self.seen:
            return record | {"outcome": "duplicate"}, None
        values = {"target": self._target(job.leaf), "query": fence("request", query)}
        request = prompt_request("scan_quality", values, max_tokens=32 + s.reason_chars // 2)
        answer = quality_answer(s.reason_chars)
        judged = await self.model.ask(request, answer, role=ROLE, reasks=s.reasks)
        if judged.value is None:
            return record | failed_outcome(judged), None
        verdict = judged.value.verdict
        record["quality"] = {"verdict": verdict, "reason": judged.value.reason}
        if verdict == "no":
            return record | {"outcome": "rejected"}, None
        if _normalized(query) in self.seen:  # a twin accepted meanwhile
            return record | {"outcome": "duplicate"}, None
        self.seen.add(_normalized(query))
        return record | {"outcome": "accepted"}, self._item(query, record)

    def _item(self, query: str, record: dict[str, Any]) -> Item:
        digest = hashlib.sha256(query.encode("utf-8")).hexdigest()[:12]
        leaf = record["leaf"]
        provenance = {key: record[key] for key in ("reference", "details", "leaf", "round")}
        return Item(
            id=f"realmix-{digest}",
            messages=[Message(role="user", content=query)],
            tags={DOMAIN_FACET: [lineage(leaf)[0]], TAXONOMY_FACET: lineage(leaf)},
            meta={
                META_KEY: provenance
                | {
                    "quality": record["quality"]["reason"],
                    "model": self.model.name,
                    "prompts": [prompt_tag("scan_realmix"), prompt_tag("scan_quality")],
                }
            },
        )


async def realmix(
    store: RunStore,
    backend: ChatBackend,
    items: list[Item],
    taxonomy: Taxonomy,
    *,
    settings: MixSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> MixResult:
    """Synthesize queries until every leaf has `min_per_leaf` items or nothing more passes."""
    settings = settings or MixSettings()
    _check_tags(items, taxonomy)
    store.add_items(items)
    stage = StageRun.begin(store, caller, progress)
    mix = _Mix(stage.model(backend), items, taxonomy, settings)
    leaves = [leaf for leaf in taxonomy.leaves() if leaf != OTHER]
    short_before = sum(mix.count(leaf) < settings.min_per_leaf for leaf in leaves)
    no_reference = [leaf for leaf in leaves if not mix.references(leaf)]
    outcomes: Counter[str] = Counter()
    added: list[Item] = []
    rounds = 0
    for round_ in range(settings.max_rounds):
        jobs = [
            _Attempt(leaf, round_, index)
            for leaf in leaves
            if leaf not in no_reference
            for index in range(settings.min_per_leaf - mix.count(leaf))
        ]
        if not jobs:
            break
        rounds += 1
        accepted: list[Item] = []

        async def run(job: _Attempt, accepted: list[Item] = accepted) -> None:
            record, item = await mix.attempt(job)
            store.put_record(RECORD_KIND, job.key, record)
            outcomes[record["outcome"]] += 1
            if item is not None:
                accepted.append(item)

        label = f"taxonomy: synthesize, round {round_ + 1}"
        await stage.each(label, jobs, backend.max_concurrency, run)
        if not accepted:
            break
        accepted.sort(key=lambda item: item.id)
        store.add_items(accepted)
        mix.items.extend(accepted)
        added.extend(accepted)
    report = MixReport(
        leaves=len(leaves),
        short_before=short_before,
        short_after=[leaf for leaf in leaves if mix.count(leaf) < settings.min_per_leaf],
        no_reference=no_reference,
        rounds=rounds,
        attempts=sum(outcomes.values()),
        outcomes=dict(outcomes),
    )
    summary = stage.clock.summary(
        "scan synthesize",
        total=report.attempts,
        already_done=0,
        errors=outcomes["failed"],
    )
    return MixResult(mix.items, added, report, summary)
