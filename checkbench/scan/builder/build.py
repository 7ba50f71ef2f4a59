"""TaxBuilder (SCAN): grow a capability taxonomy from real queries with a model's decisions.

1. Extract: per query, the model names 1..`max_tags` capabilities (lowercase name without a
   slash, one-sentence description).
2. Insert: each capability descends from the root one level at a time. At the root the model
   picks one of the domains; at any other node it picks "exists" (the node or one of its
   children already means it), "add here" (it becomes a new child) or the name of a child to
   descend into. The choices are a schema enum, so the answer names a real option (a child
   literally named "exists" or "add here" reads as that choice).
3. Refine: every parent with at least two children (as the tree stood when refinement began)
   gets one decision about its children: keep, merge, reparent, delete or split (a leaf into
   2-3 parts). Decisions go through the pure tree operations; one they refuse (a merge of a
   node into itself, a split of a node with children, a name clash) is rejected and recorded,
   never applied.
4. Prune: rule-based layer pruning (`prune.prune`), which also maps old paths to new ones.

A malformed answer is re-asked (`ask_structured`); one still unusable after that is recorded as
failed and counted. Resumability: every call is cached, and each insertion and refinement
outcome is a record ("taxbuilder.step", in order). A rerun replays the recorded outcomes onto
the seed with the tree operations, then continues with the steps that have no record, so an
interrupted build goes on where it stopped and a finished one makes no new call. Extraction
failures are asked again on a rerun (no tree state depends on them); failed insertions and
refinements are final, because later steps were decided on the tree without them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend
from checkbench.prompts import fence
from checkbench.scan.prune import prune
from checkbench.scan.tree import SEP, Node, Taxonomy, TaxonomyError, parent_of
from checkbench.schema import Item
from checkbench.steps.ask import Structured, Unusable
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import (
    Asker,
    Schema,
    bounded_array,
    choice,
    failed_outcome,
    fenced_list,
    field,
    json_object,
    prompt_request,
    prompt_tag,
    query_text,
    strict_object,
    text,
)
from checkbench.steps.stage import StageRun, StageSummary
from checkbench.store import RunStore

ROLE = "taxbuilder"
PROMPTS = ("scan_tags", "scan_insert", "scan_refine")
EXISTS, ADD_HERE = "exists", "add here"
TAGS_KIND, STEP_KIND, PLAN_KIND = "taxbuilder.tags", "taxbuilder.step", "taxbuilder.plan"
T = TypeVar("T")
Parser = Callable[[str], T]
Action = Literal["keep", "merge", "reparent", "delete", "split"]


@dataclass(frozen=True)
class TaxBuilderSettings:
    """Sizes of the model's answers and the pruning rule."""

    max_tags: int = 3
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


class Tag(BaseModel):
    """A capability named by the model: a node-to-be."""

    name: str
    description: str


class Decision(BaseModel):
    """One refinement decision about a parent's children."""

    action: Action
    node: str | None = None
    target: str | None = None
    parts: list[Tag] = []


class TaxBuilderReport(BaseModel):
    """What the build did: counts per stage and outcome, and the resulting tree's size."""

    queries: int
    extracted: int
    extraction_failed: int
    tags: int
    insert: dict[str, int]
    refine: dict[str, int]
    nodes_before_pruning: int
    nodes: int
    leaves: int
    depth: int


@dataclass(frozen=True)
class TaxBuildResult:
    """The pruned taxonomy, the tree before pruning, where each old path went, and counts."""

    taxonomy: Taxonomy
    unpruned: Taxonomy
    path_map: dict[str, str]
    report: TaxBuilderReport
    summary: StageSummary


def _budget(chars: int) -> int:
    """Tokens that comfortably hold `chars` characters of JSON answer."""
    return 24 + chars // 2


def _name(raw: Any, what: str) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise Unusable(f"{what} needs a non-empty name")
    name = " ".join(raw.split()).lower()
    if SEP in name:
        raise Unusable(f"the name '{name}' contains '{SEP}', which is not allowed")
    return name


def _tag(entry: Any) -> Tag:
    if not isinstance(entry, dict):
        raise Unusable("each capability must be an object with name and description")
    return Tag(
        name=_name(entry.get("name"), "a capability"),
        description=str(entry.get("description", "")).strip(),
    )


def parse_tags(raw: str, max_tags: int) -> list[Tag]:
    """The capabilities of an extraction answer, duplicates dropped; Unusable if none or too
    many or a name is bad."""
    entries = field(json_object(raw), "tags", list)
    if not 1 <= len(entries) <= max_tags:
        raise Unusable(f"give between 1 and {max_tags} capabilities, not {len(entries)}")
    tags = {tag.name: tag for tag in reversed([_tag(entry) for entry in entries])}
    return list(reversed(tags.values()))


def _tag_schema(settings: TaxBuilderSettings) -> Schema:
    tag = strict_object(
        {"name": text(settings.name_chars), "description": text(settings.description_chars)}
    )
    return strict_object({"tags": bounded_array(tag, min_items=1, max_items=settings.max_tags)})


def _children(taxonomy: Taxonomy, at: str) -> list[Node]:
    return taxonomy.find(at).children if at else taxonomy.domains


def _node_lines(nodes: list[Node]) -> list[str]:
    return [f"{node.name}: {node.description}" for node in nodes]


def insert_options(taxonomy: Taxonomy, at: str) -> list[str]:
    """The choices at a node: a domain at the root, else exists / add here / a child."""
    names = [child.name for child in _children(taxonomy, at)]
    return names if not at else [EXISTS, ADD_HERE, *names]


def parse_choice(raw: str, options: list[str]) -> tuple[str, str]:
    """(choice, reason) of an insertion answer; Unusable unless the choice is an option
    (matched exactly, else case-insensitively)."""
    data = json_object(raw)
    picked = field(data, "choice", str).strip()
    if picked not in options:
        folded = [option for option in options if option.lower() == picked.lower()]
        if len(folded) != 1:
            raise Unusable(f"'choice' must be one of {json.dumps(options, ensure_ascii=False)}")
        picked = folded[0]
    return picked, str(data.get("reason", ""))


def _refine_schema(children: list[str], settings: TaxBuilderSettings) -> Schema:
    node = choice(children)
    part = strict_object(
        {"name": text(settings.name_chars), "description": text(settings.description_chars)}
    )
    decisions = [
        strict_object({"action": {"const": "keep"}}),
        strict_object({"action": {"const": "merge"}, "node": node, "into": node}),
        strict_object({"action": {"const": "reparent"}, "node": node, "under": node}),
        strict_object({"action": {"const": "delete"}, "node": node}),
        strict_object(
            {
                "action": {"const": "split"},
                "node": node,
                "parts": bounded_array(part, min_items=2, max_items=3),
            }
        ),
    ]
    return strict_object({"reason": text(settings.reason_chars), "decision": {"anyOf": decisions}})


_TARGET = {"merge": "into", "reparent": "under"}


def parse_decision(raw: str, children: list[str]) -> tuple[Decision, str]:
    """(decision, reason) of a refinement answer; Unusable when it is malformed or names a
    node that is not one of the children. Whether it can be applied is checked later."""
    data = json_object(raw)
    body = field(data, "decision", dict)
    action = field(body, "action", str)
    if action not in ("keep", "merge", "reparent", "delete", "split"):
        raise Unusable(f"unknown action '{action}'")
    decision = Decision(action=action)
    if action != "keep":
        decision.node = field(body, "node", str)
    if action in _TARGET:
        decision.target = field(body, _TARGET[action], str)
    for name in (decision.node, decision.target):
        if name is not None and name not in children:
            raise Unusable(f"'{name}' is not one of the children {json.dumps(children)}")
    if action == "split":
        parts = field(body, "parts", list)
        if not 2 <= len(parts) <= 3:
            raise Unusable("a split needs 2 or 3 parts")
        decision.parts = [_tag(part) for part in parts]
    return decision, str(data.get("reason", ""))


def apply_decision(taxonomy: Taxonomy, parent: str, decision: Decision) -> Taxonomy:
    """The taxonomy after a refinement decision; TaxonomyError when the tree refuses it."""

    def at(name: str | None) -> str:
        return f"{parent}{SEP}{name}" if parent else str(name)

    if decision.action == "keep":
        return taxonomy
    if decision.action == "delete":
        return taxonomy.delete(at(decision.node))
    if decision.action == "merge":
        return taxonomy.merge(at(decision.node), at(decision.target))
    if decision.action == "reparent":
        return taxonomy.reparent(at(decision.node), at(decision.target))
    names = [part.name for part in decision.parts]
    if len(set(names)) != len(names):
        raise TaxonomyError(f"the parts of a split need distinct names, got {names}")
    parts = {part.name: part.description for part in decision.parts}
    return taxonomy.split(at(decision.node), parts, {})


def apply_step(taxonomy: Taxonomy, step: dict[str, Any]) -> Taxonomy:
    """Replay one recorded step: an added capability or an applied refinement; others are
    records only."""
    if step["kind"] == "insert" and step["outcome"] == "added":
        tag = Tag.model_validate(step["tag"])
        return taxonomy.add_child(parent_of(step["path"]), tag.name, tag.description)
    if step["kind"] == "refine" and step["outcome"] == "applied":
        decision = Decision.model_validate(step["decision"])
        return apply_decision(taxonomy, step["parent"], decision)
    return taxonomy


@dataclass
class _Build:
    """The state of one build: the store, the model, the current tree and the step counter."""

    store: RunStore
    asker: Asker
    settings: TaxBuilderSettings
    taxonomy: Taxonomy
    steps: int = 0

    def record(self, step: dict[str, Any]) -> None:
        self.store.put_record(STEP_KIND, f"{self.steps:06d}", step)
        self.steps += 1

    async def ask(
        self, name: str, values: dict[str, str], schema: Schema, tokens: int, parse: Parser[T]
    ) -> Structured[T]:
        request = prompt_request(name, values, schema=schema, max_tokens=tokens)
        return await self.asker(request, parse)

    async def extract(self, item: Item) -> None:
        s = self.settings
        values = {
            "query": fence("request", query_text(item, s.query_chars)),
            "max_tags": str(s.max_tags),
        }
        tokens = 16 + s.max_tags * _budget(s.name_chars + s.description_chars + 30)
        answer = await self.ask(
            "scan_tags", values, _tag_schema(s), tokens, lambda raw: parse_tags(raw, s.max_tags)
        )
        tags = [tag.model_dump() for tag in answer.value or []]
        failed = {"problem": answer.problem, "raw": answer.raw} if answer.value is None else {}
        self.store.put_record(TAGS_KIND, item.id, {"tags": tags, **failed})

    async def insert(self, query: str, index: int, tag: Tag) -> None:
        at, path_taken = "", []
        step: dict[str, Any] = {"kind": "insert", "query": query, "index": index}
        step["tag"] = tag.model_dump()
        while True:
            options = insert_options(self.taxonomy, at)
            children = _children(self.taxonomy, at)
            node = self.taxonomy.find(at) if at else None
            values = {
                "tag": fence("capability", f"{tag.name}: {tag.description}"),
                "node": fence("node", f"{at}: {node.description}") if node else "the root",
                "children": "Its children:\n" + fenced_list("children", _node_lines(children))
                if children
                else "It has no children yet.",
                "options": fence("choices", json.dumps(options, ensure_ascii=False)),
            }
            schema = strict_object(
                {"reason": text(self.settings.reason_chars), "choice": choice(options)}
            )
            tokens = _budget(self.settings.reason_chars + self.settings.name_chars + 30)
            answer = await self.ask(
                "scan_insert", values, schema, tokens, lambda raw, o=options: parse_choice(raw, o)
            )
            if answer.value is None:
                step |= failed_outcome(answer)
                break
            picked, reason = answer.value
            path_taken.append({"at": at, "choice": picked, "reason": reason})
            if picked == EXISTS:
                step |= {"outcome": "exists", "path": at}
                break
            if picked == ADD_HERE:
                try:
                    self.taxonomy = self.taxonomy.add_child(at, tag.name, tag.description)
                    step |= {"outcome": "added", "path": f"{at}{SEP}{tag.name}"}
                except (TaxonomyError, ValidationError) as exc:
                    step |= {"outcome": "rejected", "problem": str(exc)}
                break
            at = f"{at}{SEP}{picked}" if at else picked
        self.record(step | {"descent": path_taken})

    async def refine(self, index: int, parent: str) -> None:
        step: dict[str, Any] = {"kind": "refine", "plan_index": index, "parent": parent}
        children = self.taxonomy.find(parent).children if self.taxonomy.has(parent) else []
        if len(children) < 2:
            self.record(step | {"outcome": "skipped", "problem": "fewer than two children now"})
            return
        names = [child.name for child in children]
        s = self.settings
        values = {
            "node": fence("parent", f"{parent}: {self.taxonomy.find(parent).description}"),
            "children": "Its children:\n" + fenced_list("children", _node_lines(children)),
        }
        tokens = _budget(s.reason_chars + 3 * (s.name_chars + s.description_chars) + 120)
        answer = await self.ask(
            "scan_refine",
            values,
            _refine_schema(names, s),
            tokens,
            lambda raw: parse_decision(raw, names),
        )
        if answer.value is None:
            self.record(step | failed_outcome(answer))
            return
        decision, reason = answer.value
        step |= {"decision": decision.model_dump(), "reason": reason}
        try:
            self.taxonomy = apply_decision(self.taxonomy, parent, decision)
        except (TaxonomyError, ValidationError) as exc:
            self.record(step | {"outcome": "rejected", "problem": str(exc)})
            return
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


def _count(steps: list[dict[str, Any]], kind: str) -> dict[str, int]:
    return dict(Counter(step["outcome"] for step in steps if step["kind"] == kind))


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
    build = _Build(store, Asker(stage.caller, backend, ROLE, settings.reasks), settings, seed)
    recorded = list(store.records(STEP_KIND).values())
    for step in recorded:
        build.taxonomy = apply_step(build.taxonomy, step)
    build.steps = len(recorded)

    extracted = store.records(TAGS_KIND)
    todo = [q for q in queries if q.id not in extracted or extracted[q.id].get("problem")]
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
        plan = store.records(PLAN_KIND).get("refine")
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
    failed = sum(1 for q in queries if extracted[q.id].get("problem"))
    report = TaxBuilderReport(
        queries=len(queries),
        extracted=len(queries) - failed,
        extraction_failed=failed,
        tags=sum(len(extracted[q.id]["tags"]) for q in queries),
        insert=_count(steps, "insert"),
        refine=_count(steps, "refine"),
        nodes_before_pruning=len(build.taxonomy.paths()),
        nodes=len(pruned.taxonomy.paths()),
        leaves=len(pruned.taxonomy.leaves()),
        depth=pruned.taxonomy.depth(),
    )
    summary = stage.clock.summary(
        "taxonomy build",
        total=len(steps),
        already_done=len(recorded),
        errors=failed + report.insert.get("failed", 0) + report.refine.get("failed", 0),
    )
    return TaxBuildResult(pruned.taxonomy, build.taxonomy, pruned.path_map, report, summary)
