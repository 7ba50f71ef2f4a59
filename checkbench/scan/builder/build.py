"""Running TaxBuilder over a run store: extraction, insertion, refinement, pruning.

A malformed answer is re-asked; one still unusable after that is recorded as failed and
counted, per step (tag, insert, refine) and cause (invalid JSON, not a capability name, not an
option, the tree refused it...; see `report`), beside the model answers each step took.
Insertion never goes below `max_depth` levels, and a refinement that would is refused.

Resumability: every call is cached, and each insertion and refinement outcome is a record
("taxbuilder.step", in order). A rerun replays the recorded outcomes onto the seed with the
tree operations, then continues with the steps that have no record, so an interrupted build goes
on where it stopped and a finished one makes no new call. Extraction failures are asked again on
a rerun (no tree state depends on them); failed insertions and refinements are final, because
later steps were decided on the tree without them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend
from checkbench.prompts import fence
from checkbench.scan.builder.decisions import (
    ADD_BESIDE,
    ADD_HERE,
    EXISTS,
    Tag,
    apply_decision,
    apply_step,
    children,
    insert_answer,
    insert_options,
    refine_answer,
    tags_answer,
)
from checkbench.scan.builder.report import TaxBuilderReport, build_report
from checkbench.scan.paths import TaxonomyError, join_path, parent_of
from checkbench.scan.prune import prune
from checkbench.scan.tree import Node, Taxonomy
from checkbench.schema import Item
from checkbench.steps.answers import Answer
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel, Structured
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import (
    failed_outcome,
    fenced_list,
    prompt_request,
    prompt_tag,
    query_text,
)
from checkbench.steps.stage import RunTally, StageRun, StageSummary
from checkbench.store import RecordKind, RunStore

ROLE = "taxbuilder"
PROMPTS = ("scan_tags", "scan_insert", "scan_refine")
TAGS_KIND = RecordKind("taxbuilder.tags", dict[str, Any])
"""A query's extracted capabilities: {"tags": [Tag JSON], "calls": n} (+ problem, raw)."""
STEP_KIND = RecordKind("taxbuilder.step", dict[str, Any])
"""One step that changed the tree (insert or refine), by its number: what `apply_step` replays."""
PLAN_KIND = RecordKind("taxbuilder.plan", list[str])
"""The refinement plan, under "refine": the paths of the nodes to refine, in order."""
A = TypeVar("A", bound=Answer)


@dataclass(frozen=True)
class TaxBuilderSettings:
    """Sizes of the model's answers, the depth insertion may reach (domains are level 1) and the
    pruning rule."""

    max_tags: int = 3
    max_depth: int = 4
    query_chars: int = 2000
    name_chars: int = 40
    description_chars: int = 160
    reason_chars: int = 200
    reasks: int = 2
    refine: bool = True
    max_levels: int = 3
    wide: int = 5

    def fingerprint(self) -> dict[str, Any]:
        """The settings that shape the model's decisions (pruning is redone on every run)."""
        return {k: v for k, v in asdict(self).items() if k not in ("max_levels", "wide")}


@dataclass(frozen=True)
class TaxBuildResult:
    """The pruned taxonomy, the tree before pruning, where each old path went, and counts."""

    taxonomy: Taxonomy
    unpruned: Taxonomy
    path_map: dict[str, str]
    report: TaxBuilderReport
    summary: StageSummary
    tally: RunTally | None = None
    """What the store says of the stage's calls, for the CLI to print (set by the API)."""


def _budget(chars: int) -> int:
    """Tokens that hold `chars` characters of JSON answer in any script: Chinese text takes
    about two tokens a character, so a tighter budget cuts such answers off as invalid JSON."""
    return 24 + 2 * chars


def _node_lines(nodes: list[Node]) -> list[str]:
    return [f"{node.name}: {node.description}" for node in nodes]


@dataclass
class _Build:
    """The state of one build: the store, the model, the current tree and the step counter."""

    store: RunStore
    model: StepModel
    settings: TaxBuilderSettings
    taxonomy: Taxonomy
    steps: int = 0

    def record(self, step: dict[str, Any]) -> None:
        self.store.put_record(STEP_KIND, f"{self.steps:06d}", step)
        self.steps += 1

    async def ask(
        self, prompt: str, values: dict[str, str], answer: type[A], tokens: int
    ) -> Structured[A]:
        request = prompt_request(prompt, values, max_tokens=tokens)
        return await self.model.ask(request, answer, role=ROLE, reasks=self.settings.reasks)

    async def extract(self, item: Item) -> None:
        s = self.settings
        query = query_text(item, s.query_chars)
        values = {"query": fence("request", query), "max_tags": str(s.max_tags)}
        tokens = 16 + s.max_tags * _budget(s.name_chars + s.description_chars + 30)
        answer_type = tags_answer(s.max_tags, s.name_chars, s.description_chars, query)
        answer = await self.ask("scan_tags", values, answer_type, tokens)
        found = answer.value.capabilities() if answer.value is not None else []
        tags = [tag.model_dump() for tag in found]
        failed = {"problem": answer.problem, "raw": answer.raw} if answer.value is None else {}
        self.store.put_record(
            TAGS_KIND, item.id, {"tags": tags, "calls": answer.attempts, **failed}
        )

    def _insert_values(self, tag: Tag, at: str, options: list[str]) -> dict[str, str]:
        """The insertion prompt at node `at`: the node, its siblings and its children."""
        values = {
            "tag": fence("capability", f"{tag.name}: {tag.description}"),
            "node": "the root",
            "siblings": "",
            "children": "Its children (the domains):\n"
            + fenced_list("children", _node_lines(children(self.taxonomy, at))),
            "options": fence("choices", json.dumps(options, ensure_ascii=False)),
        }
        if not at:
            return values
        node, beside = self.taxonomy.find(at), children(self.taxonomy, parent_of(at))
        others = _node_lines([sibling for sibling in beside if sibling.name != node.name])
        values["node"] = fence("node", f"{at}: {node.description}")
        values["siblings"] = "Beside it, at the same level:\n" + fenced_list("siblings", others)
        if ADD_HERE not in options:
            values["children"] = "It is as deep as the taxonomy goes: nothing can go below it."
        elif node.children:
            values["children"] = "Its children:\n" + fenced_list(
                "children", _node_lines(node.children)
            )
        else:
            values["children"] = "It has no children yet."
        return values

    def _add(self, parent: str, tag: Tag) -> dict[str, Any]:
        try:
            self.taxonomy = self.taxonomy.add_child(parent, tag.name, tag.description)
        except (TaxonomyError, ValidationError) as exc:
            return {"outcome": "rejected", "problem": str(exc)}
        return {"outcome": "added", "path": join_path(parent, tag.name)}

    async def insert(self, query: str, index: int, tag: Tag) -> None:
        """Descend from the root one level per answer until the tag exists or is added."""
        s, at, descent, calls = self.settings, "", [], 0
        step: dict[str, Any] = {"kind": "insert", "query": query, "index": index}
        step["tag"] = tag.model_dump()
        tokens = _budget(s.reason_chars + s.name_chars + 30)
        while True:
            options = insert_options(self.taxonomy, at, s.max_depth)
            answer_type = insert_answer(tuple(options), s.reason_chars)
            answer = await self.ask(
                "scan_insert", self._insert_values(tag, at, options), answer_type, tokens
            )
            calls += answer.attempts
            if answer.value is None:
                step |= failed_outcome(answer)
                break
            picked = answer.value.choice
            descent.append({"at": at, "choice": picked, "reason": answer.value.reason})
            if picked == EXISTS:
                step |= {"outcome": "exists", "path": at}
                break
            if picked in (ADD_HERE, ADD_BESIDE):
                step |= self._add(at if picked == ADD_HERE else parent_of(at), tag)
                break
            at = join_path(at, picked)
        self.record(step | {"descent": descent, "calls": calls})

    async def refine(self, index: int, parent: str) -> None:
        step: dict[str, Any] = {"kind": "refine", "plan_index": index, "parent": parent}
        below = self.taxonomy.find(parent).children if self.taxonomy.has(parent) else []
        if len(below) < 2:
            self.record(step | {"outcome": "skipped", "problem": "fewer than two children now"})
            return
        names = tuple(child.name for child in below)
        s = self.settings
        values = {
            "node": fence("parent", f"{parent}: {self.taxonomy.find(parent).description}"),
            "children": "Its children:\n" + fenced_list("children", _node_lines(below)),
        }
        tokens = _budget(s.reason_chars + 3 * (s.name_chars + s.description_chars) + 120)
        answer_type = refine_answer(names, s.reason_chars, s.name_chars, s.description_chars)
        answer = await self.ask("scan_refine", values, answer_type, tokens)
        step["calls"] = answer.attempts
        if answer.value is None:
            self.record(step | failed_outcome(answer))
            return
        decision = answer.value.decided()
        step |= {"decision": decision.model_dump(), "reason": answer.value.reason}
        try:
            after = apply_decision(self.taxonomy, parent, decision)
        except (TaxonomyError, ValidationError) as exc:
            self.record(step | {"outcome": "rejected", "problem": str(exc)})
            return
        limit = max(s.max_depth, self.taxonomy.depth())
        if after.depth() > limit:
            problem = f"the taxonomy would be {after.depth()} levels deep, more than {limit}"
            self.record(step | {"outcome": "rejected", "problem": problem})
            return
        self.taxonomy = after
        self.record(step | {"outcome": "kept" if decision.action == "keep" else "applied"})


def _check_run(
    store: RunStore, seed: Taxonomy, backend: ChatBackend, settings: TaxBuilderSettings
) -> None:
    """A run directory continues only the build it started: same seed, model, settings and
    prompt versions (anything else would make the recorded decisions stale)."""
    identity = {
        "seed": seed.model_dump(mode="json"),
        "model": backend.name,
        "settings": settings.fingerprint(),
        "prompts": [prompt_tag(name) for name in PROMPTS],
    }
    known = store.get_meta("taxbuilder")
    if known is not None and known != identity:
        raise InputError(
            "this run directory holds a build with another seed taxonomy, model, settings or "
            "prompt version; "
            "use a new --out",
            path=store.run_dir,
        )
    store.set_meta("taxbuilder", identity)


async def build_taxonomy(
    store: RunStore,
    backend: ChatBackend,
    queries: list[Item],
    *,
    seed: Taxonomy,
    settings: TaxBuilderSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> TaxBuildResult:
    """Grow `seed` with the capabilities of `queries` (stored in the run); rerunning resumes."""
    settings = settings or TaxBuilderSettings()
    if not seed.domains:
        raise InputError("the seed taxonomy has no domains to insert capabilities under")
    _check_run(store, seed, backend, settings)
    store.add_items(queries)
    stage = StageRun.begin(store, caller, progress)
    build = _Build(store, stage.model(backend), settings, seed)
    recorded = list(store.records(STEP_KIND).values())
    for step in recorded:
        build.taxonomy = apply_step(build.taxonomy, step)
    build.steps = len(recorded)

    extracted = store.records(TAGS_KIND)
    todo = [q for q in queries if q.id not in extracted or extracted[q.id].get("problem")]
    done_before = len(queries) - len(todo) + len(recorded)
    await stage.each("taxonomy: extract capabilities", todo, backend.max_concurrency, build.extract)
    extracted = store.records(TAGS_KIND)

    inserted = {(s["query"], s["index"]) for s in recorded if s["kind"] == "insert"}
    pending = [
        (item.id, index, Tag.model_validate(tag))
        for item in queries
        for index, tag in enumerate(extracted[item.id]["tags"])
        if (item.id, index) not in inserted
    ]
    stage.progress.start("taxonomy: insert", len(pending))
    for query, index, tag in pending:
        await build.insert(query, index, tag)
        stage.advance()

    if settings.refine:
        plan = store.records(PLAN_KIND, only="refine").get("refine")
        if plan is None:
            plan = [path for path, node in build.taxonomy.walk() if len(node.children) >= 2]
            store.put_record(PLAN_KIND, "refine", plan)
        done = {s["plan_index"] for s in store.records(STEP_KIND).values() if s["kind"] == "refine"}
        stage.progress.start("taxonomy: refine", len(plan) - len(done))
        for index, parent in enumerate(plan):
            if index not in done:
                await build.refine(index, parent)
                stage.advance()

    pruned = prune(build.taxonomy, max_levels=settings.max_levels, wide=settings.wide)
    steps = list(store.records(STEP_KIND).values())
    report = build_report(
        [extracted[q.id] for q in queries], steps, seed, build.taxonomy, pruned.taxonomy
    )
    summary = stage.clock.summary(  # the work: one extraction per query, then the steps
        "scan build",
        total=len(queries) + len(steps),
        counted=f"steps in all ({len(queries)} extractions, one per query; {len(steps)} "
        "insertions and refinements)",
        already_done=done_before,
        errors=report.extraction_failed
        + report.insert.get("failed", 0)
        + report.refine.get("failed", 0),
    )
    return TaxBuildResult(pruned.taxonomy, build.taxonomy, pruned.path_map, report, summary)
