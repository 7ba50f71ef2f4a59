"""Tagging (SCAN): each item gets a domain and hierarchical capability tags from a taxonomy.

Two steps per item, each one JSON answer under a schema enum:
1. Domain: one of writing, roleplay, knowledge, coding, mathematics, reasoning, other, checked in
   that order (`domains.DOMAINS`).
2. Tags: when the taxonomy has that domain with nodes below it, the model picks up to
   `max_tags` of those nodes by path, or the label "other" when none fits.

Written into the item: `tags["domain"] = [domain]` and `tags["taxonomy"]` = the chosen paths
with all their ancestors (a child implies its parent), in taxonomy order. Where nothing fits
the tags hold only the domain's own path ("other" within the domain: the item counts for the
domain and for no node below it); a domain the taxonomy lacks (and the "other" domain) maps to
the taxonomy's "other" node when it has one, else to no path. Every tag is thus a path of the
taxonomy, which navigation requires. A failed step leaves the item without these facets (stale
ones are removed), records the problem in `meta["scan_tagging"]` and is counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.prompts import fence
from checkbench.scan.domains import DOMAINS, OTHER
from checkbench.scan.navigate import TAXONOMY_FACET
from checkbench.scan.tree import SEP, Taxonomy, lineage
from checkbench.schema import Item
from checkbench.steps.ask import Unusable
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import (
    Asker,
    bounded_array,
    choice,
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

ROLE = "tagging"
DOMAIN_FACET = "domain"
META_KEY = "scan_tagging"
RECORD_KIND = "tagging"


@dataclass(frozen=True)
class TagSettings:
    """Sizes of the model's answers."""

    max_tags: int = 4
    query_chars: int = 2000
    reason_chars: int = 160
    reasks: int = 2


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


def parse_domain(raw: str) -> str:
    """The domain of an answer; Unusable unless it is one of the seven."""
    domain = field(json_object(raw), "domain", str).strip().lower()
    if domain not in DOMAINS:
        raise Unusable(f"'domain' must be one of {', '.join(DOMAINS)}")
    return domain


def parse_paths(raw: str, options: list[str], max_tags: int) -> list[str]:
    """The chosen paths of an answer ([] for "other"); Unusable for an unknown label or too
    many of them."""
    labels = field(json_object(raw), "tags", list)
    if len(labels) > max_tags:
        raise Unusable(f"choose at most {max_tags} nodes")
    unknown = [label for label in labels if label != OTHER and label not in options]
    if unknown:
        raise Unusable(f'not taxonomy paths: {unknown}; use the paths listed or "other"')
    return list(dict.fromkeys(label for label in labels if label != OTHER))


def closure(taxonomy: Taxonomy, paths: list[str]) -> list[str]:
    """The paths and all their ancestors, once each, in taxonomy order."""
    order = {path: index for index, path in enumerate(taxonomy.paths())}
    return sorted({node for path in paths for node in lineage(path)}, key=order.__getitem__)


def _domain_request(item: Item, settings: TagSettings) -> ChatRequest:
    values = {
        "domains": fenced_list("domains", [f"{name}: {about}" for name, about in DOMAINS.items()]),
        "query": fence("request", query_text(item, settings.query_chars)),
    }
    schema = strict_object({"reason": text(settings.reason_chars), "domain": choice(list(DOMAINS))})
    return prompt_request(
        "scan_domain", values, schema=schema, max_tokens=40 + settings.reason_chars // 2
    )


def _tags_request(
    item: Item, domain: str, taxonomy: Taxonomy, settings: TagSettings
) -> tuple[list[str], ChatRequest]:
    below = [(p, n) for p, n in taxonomy.walk() if p.startswith(domain + SEP)]
    values = {
        "query": fence("request", query_text(item, settings.query_chars)),
        "domain": domain,
        "taxonomy": fenced_list("taxonomy", [f"{p}: {n.description}" for p, n in below]),
        "max_tags": str(settings.max_tags),
    }
    options = [path for path, _ in below]
    longest = max(len(path) for path in options)
    schema = strict_object(
        {
            "reason": text(settings.reason_chars),
            "tags": bounded_array(choice([*options, OTHER]), max_items=settings.max_tags),
        }
    )
    tokens = 40 + settings.reason_chars // 2 + settings.max_tags * (8 + longest // 2)
    return options, prompt_request("scan_tagging", values, schema=schema, max_tokens=tokens)


def _fallback(taxonomy: Taxonomy) -> list[str]:
    """Tags of an item whose domain is "other" or absent from the taxonomy."""
    return [OTHER] if taxonomy.has(OTHER) else []


async def tag_item(
    caller: Caller, backend: ChatBackend, item: Item, taxonomy: Taxonomy, settings: TagSettings
) -> tuple[Item, dict[str, Any]]:
    """The item with its domain and taxonomy tags, and the record of how they were chosen."""
    ask = Asker(caller, backend, ROLE, settings.reasks)
    tags = {k: v for k, v in item.tags.items() if k not in (DOMAIN_FACET, TAXONOMY_FACET)}
    record: dict[str, Any] = {"model": backend.name, "problem": None}
    answer = await ask(_domain_request(item, settings), parse_domain)
    domain = answer.value
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
            options, request = _tags_request(item, domain, taxonomy, settings)
            chosen = await ask(request, lambda raw: parse_paths(raw, options, settings.max_tags))
            if chosen.value is None:
                record |= {"step": "tags", "problem": chosen.problem, "raw": chosen.raw}
            else:
                record["chosen"] = chosen.value or [OTHER]
                tags[TAXONOMY_FACET] = closure(taxonomy, chosen.value) or [domain]
    meta = {**item.meta, META_KEY: {"model": backend.name, "problem": record["problem"]}}
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
    store.add_items(items)
    store.set_meta(META_KEY, {"prompts": [prompt_tag("scan_domain"), prompt_tag("scan_tagging")]})
    stage = StageRun.begin(store, caller, progress)
    tagged: dict[str, Item] = {}
    records: dict[str, dict[str, Any]] = {}

    async def one(item: Item) -> None:
        tagged[item.id], records[item.id] = await tag_item(
            stage.caller, backend, item, taxonomy, settings
        )
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
        "taxonomy tag", total=len(items), already_done=0, errors=sum(steps.values())
    )
    return TagResult([tagged[item.id] for item in items], report, summary)
