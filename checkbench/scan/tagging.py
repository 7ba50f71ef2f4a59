"""Tagging (SCAN): each item gets a domain and hierarchical capability tags from a taxonomy.

The item is read by its task: its first user turn by default, every user turn with
`turns="all"` (never only the last one, which in a multi-turn log is often feedback such as
"that is wrong"), fenced in the prompt. Then, each a JSON answer under a schema enum:
1. Domain: one of writing, roleplay, knowledge, coding, mathematics, reasoning, other, checked in
   that order (`domains.DOMAINS`).
2. Tags, level by level as SCAN's own tagging descends: when the taxonomy has that domain with
   nodes below it, the model picks up to `max_tags` of the domain's children, or the label
   "other" when none fits; then up to `max_tags` of the children of the nodes it picked, and so
   on down to the leaves or to "other". Each prompt holds one level's choices, never the tree.

Written into the item: `tags["domain"] = [domain]` and `tags["taxonomy"]` = the deepest chosen
paths with all their ancestors (a child implies its parent), in taxonomy order. Where nothing
fits the tags hold only the domain's own path ("other" within the domain: the item counts for
the domain and for no node below it); a domain the taxonomy lacks (and the "other" domain) maps
to the taxonomy's "other" node when it has one, else to no path. Every tag is thus a path of the
taxonomy, which navigation requires. A failed step leaves the item without these facets (stale
ones are removed), records the problem in `meta["scan_tagging"]` and is counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from checkbench.choices import TagTurns
from checkbench.errors import InputError
from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.prompts import fence
from checkbench.scan.domains import DOMAIN_FACET, DOMAINS, OTHER, TAXONOMY_FACET
from checkbench.scan.paths import join_path, lineage
from checkbench.scan.tree import Node, Taxonomy
from checkbench.schema import Item
from checkbench.steps.answers import Answer, answer_model, choice, listing, text
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import clip, fenced_list, prompt_request, prompt_tag
from checkbench.steps.stage import RunTally, StageRun, StageSummary
from checkbench.store import RecordKind, RunStore

ROLE = "tagging"
META_KEY = "scan_tagging"
RECORD_KIND = RecordKind("tagging", dict[str, Any])
"""How an item's tags were chosen, by item id: model, domain, chosen paths or the problem."""


@dataclass(frozen=True)
class TagSettings:
    """Which user turns state the task, and sizes of the model's answers (`max_tags`: nodes
    chosen per level, hence at most that many deepest tags)."""

    max_tags: int = 4
    query_chars: int = 2000
    reason_chars: int = 160
    reasks: int = 2
    turns: TagTurns = "first"


class TagReport(BaseModel):
    """Counts over the tagged items."""

    items: int
    tagged: int
    nothing_fits: int
    domain_failed: int
    tags_failed: int
    domains: dict[str, int]


@dataclass(frozen=True)
class TagResult:
    """The items with their new tags, and what happened."""

    items: list[Item]
    report: TagReport
    summary: StageSummary
    tally: RunTally | None = None
    """What the store says of the stage's calls, for the CLI to print (set by the API)."""


@cache
def domain_answer(reason_chars: int) -> type[Answer]:
    """A reason and one of the seven domains."""
    return answer_model("Domain", reason=(text(reason_chars), ""), domain=choice(DOMAINS))


class PathsAnswer(Answer):
    """A reason and the chosen taxonomy paths (see `paths_answer`)."""

    reason: str = ""
    tags: list[str]

    def paths(self) -> list[str]:
        """The chosen paths, each once, without "other" (nothing fits)."""
        return list(dict.fromkeys(label for label in self.tags if label != OTHER))


@cache
def paths_answer(options: tuple[str, ...], max_tags: int, reason_chars: int) -> type[PathsAnswer]:
    """Up to `max_tags` of the paths `options`, or "other"."""
    return answer_model(
        "Paths",
        PathsAnswer,
        reason=(text(reason_chars), ""),
        tags=listing(choice([*options, OTHER]), max_items=max_tags),
    )


def closure(taxonomy: Taxonomy, paths: list[str]) -> list[str]:
    """The paths and all their ancestors, once each, in taxonomy order."""
    order = {path: index for index, path in enumerate(taxonomy.paths())}
    return sorted({node for path in paths for node in lineage(path)}, key=order.__getitem__)


def task_text(item: Item, settings: TagSettings) -> str:
    """What the item asks, as the tagger reads it: its first user turn, or every user turn
    numbered (`settings.turns`), clipped to bound the prompt."""
    users = [m.content for m in item.messages if m.role == "user"] or [item.messages[-1].content]
    if settings.turns == "first" or len(users) == 1:
        return clip(users[0], settings.query_chars)
    turns = "\n\n".join(f"[user turn {n}]\n{text}" for n, text in enumerate(users, start=1))
    return clip(turns, settings.query_chars)


def check_tasks(items: Iterable[Item], path: str | Path | None, settings: TagSettings) -> None:
    """InputError naming the file, the item's record and the field when an item's task, as
    `task_text` reads it (its first user turn, or with `turns="all"` every user turn), is blank:
    there is nothing to tag it by. Records count from 1, as the benchmark loaders count them."""
    for number, item in enumerate(items, start=1):
        users = [index for index, m in enumerate(item.messages) if m.role == "user"]
        chosen = users[:1] if settings.turns == "first" else users
        if chosen and all(not item.messages[index].content.strip() for index in chosen):
            which = "first user turn is" if len(chosen) == 1 else "user turns are all"
            raise InputError(
                f"item '{item.id}': its {which} blank, so there is no task to tag it by",
                path=path,
                line=number,
                field=f"messages.{chosen[0]}.content",
            )


def _domain_request(item: Item, settings: TagSettings) -> ChatRequest:
    values = {
        "domains": fenced_list("domains", [f"{name}: {about}" for name, about in DOMAINS.items()]),
        "query": fence("request", task_text(item, settings)),
    }
    return prompt_request("scan_domain", values, max_tokens=40 + settings.reason_chars // 2)


def _level_request(
    item: Item, choices: list[tuple[str, Node]], settings: TagSettings
) -> tuple[type[PathsAnswer], ChatRequest]:
    """The question of one level: which of these nodes (path: description) the item needs."""
    values = {
        "query": fence("request", task_text(item, settings)),
        "choices": fenced_list("choices", [f"{p}: {n.description}" for p, n in choices]),
        "max_tags": str(settings.max_tags),
    }
    options = tuple(path for path, _ in choices)
    longest = max(len(path) for path in options)
    answer = paths_answer(options, settings.max_tags, settings.reason_chars)
    tokens = 40 + settings.reason_chars // 2 + settings.max_tags * (8 + longest // 2)
    return answer, prompt_request("scan_tagging", values, max_tokens=tokens)


async def descend(
    model: StepModel, item: Item, domain: str, taxonomy: Taxonomy, settings: TagSettings
) -> tuple[list[str] | None, list[list[str]], dict[str, Any]]:
    """The deepest nodes chosen below the domain, level by level (None when a level's answer
    stayed unusable, with the problem), and each level's choice ([OTHER] where none fit)."""
    chosen = [domain]
    levels: list[list[str]] = []
    while True:
        choices = [
            (path, node)
            for parent in chosen
            for node in taxonomy.find(parent).children
            for path in [join_path(parent, node.name)]
        ]
        if not choices:
            return chosen, levels, {}
        answer, request = _level_request(item, choices, settings)
        picked = await model.ask(request, answer, role=ROLE, reasks=settings.reasks)
        if picked.value is None:
            return None, levels, {"problem": picked.problem, "raw": picked.raw}
        paths = picked.value.paths()
        levels.append(paths or [OTHER])
        if not paths:
            return ([] if chosen == [domain] else chosen), levels, {}
        chosen = paths


def _fallback(taxonomy: Taxonomy) -> list[str]:
    """Tags of an item whose domain is "other" or absent from the taxonomy."""
    return [OTHER] if taxonomy.has(OTHER) else []


async def tag_item(
    model: StepModel, item: Item, taxonomy: Taxonomy, settings: TagSettings
) -> tuple[Item, dict[str, Any]]:
    """The item with its domain and taxonomy tags, and the record of how they were chosen."""
    tags = {k: v for k, v in item.tags.items() if k not in (DOMAIN_FACET, TAXONOMY_FACET)}
    record: dict[str, Any] = {"model": model.name, "problem": None}
    request = _domain_request(item, settings)
    answer = await model.ask(
        request, domain_answer(settings.reason_chars), role=ROLE, reasks=settings.reasks
    )
    domain = answer.value.domain if answer.value is not None else None
    if domain is None:
        record |= {"step": "domain", "problem": answer.problem, "raw": answer.raw}
    else:
        tags[DOMAIN_FACET] = [domain]
        record["domain"] = domain
        node = taxonomy.find(domain) if domain != OTHER and taxonomy.has(domain) else None
        if node is None:
            tags[TAXONOMY_FACET] = _fallback(taxonomy)
        elif not node.children:
            tags[TAXONOMY_FACET] = [domain]
        else:
            paths, levels, failed = await descend(model, item, domain, taxonomy, settings)
            record["levels"] = levels
            if paths is None:
                record |= {"step": "tags", **failed}
            else:
                record["chosen"] = paths or [OTHER]
                tags[TAXONOMY_FACET] = closure(taxonomy, paths) or [domain]
    meta = {**item.meta, META_KEY: {"model": model.name, "problem": record["problem"]}}
    return item.model_copy(update={"tags": tags, "meta": meta}), record


async def tag_items(
    store: RunStore,
    backend: ChatBackend,
    items: list[Item],
    taxonomy: Taxonomy,
    *,
    settings: TagSettings | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> TagResult:
    """Tag every item (stored in the run first); rerunning replays the cached answers."""
    settings = settings or TagSettings()
    check_tasks(items, None, settings)
    store.add_items(items)
    store.set_meta(META_KEY, {"prompts": [prompt_tag("scan_domain"), prompt_tag("scan_tagging")]})
    stage = StageRun.begin(store, caller, progress)
    model = stage.model(backend)
    tagged: dict[str, Item] = {}
    records: dict[str, dict[str, Any]] = {}

    async def one(item: Item) -> None:
        tagged[item.id], records[item.id] = await tag_item(model, item, taxonomy, settings)
        store.put_record(RECORD_KIND, item.id, records[item.id])

    await stage.each("taxonomy: tag", items, backend.max_concurrency, one)
    steps = Counter(r.get("step") for r in records.values() if r["problem"])
    report = TagReport(
        items=len(items),
        tagged=sum(r["problem"] is None for r in records.values()),
        nothing_fits=sum(r.get("chosen") == [OTHER] for r in records.values()),
        domain_failed=steps["domain"],
        tags_failed=steps["tags"],
        domains=dict(Counter(r["domain"] for r in records.values() if "domain" in r)),
    )
    summary = stage.clock.summary(
        "scan tag", total=len(items), already_done=0, errors=sum(steps.values())
    )
    return TagResult([tagged[item.id] for item in items], report, summary)
