"""SCAN's released query files as Items, and their type tags as taxonomy paths.

A record (JSONL, or a JSON list) holds `id`, `prompt`, `meta_data` {`domain`, `type_tags`
{facet: [tag, ...]}, `question_quality`} and its provenance under `source`. It becomes an Item:
one user message (the prompt), no checklist, `tags` = {"domain": [domain], facet: [tags] for
each type-tag facet}, and `meta["scan"]` = {"question_quality", "source"} as given. Other fields
are ignored. Ids may be numbers; they are kept as strings.

SCAN's tagger keys type tags by the second-level categories of the query's domain (the
domain's children) and lists the matching nodes below them by name, a parent with its child,
or "Other" when none matches. `type_tag_paths` turns those names into taxonomy paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from checkbench.errors import InputError
from checkbench.jsonl import iter_json_records, validate
from checkbench.scan.domains import DOMAIN_FACET, DOMAINS, TAXONOMY_FACET
from checkbench.scan.paths import is_within, join_path
from checkbench.scan.tree import Taxonomy
from checkbench.schema import Item

META_KEY = "scan"
"""`Item.meta[META_KEY]`: what a SCAN query file said about the item besides its tags."""
NO_MATCH = "other"
"""SCAN's type tag (any case) for a query that fits no node of a facet."""

Text = Annotated[str, Field(min_length=1, pattern=r"\S")]


class _MetaData(BaseModel):
    model_config = ConfigDict(extra="ignore")

    domain: str
    type_tags: dict[str, list[str]] = Field(default_factory=dict)
    question_quality: JsonValue = None

    @field_validator("domain")
    @classmethod
    def _known_domain(cls, domain: str) -> str:
        name = domain.strip().lower()
        if name not in DOMAINS:
            raise ValueError(f"'{domain}' is not a SCAN domain ({', '.join(DOMAINS)})")
        return name

    @field_validator("type_tags")
    @classmethod
    def _named(cls, tags: dict[str, list[str]]) -> dict[str, list[str]]:
        for facet, names in tags.items():
            if facet.strip() in (DOMAIN_FACET, TAXONOMY_FACET) or not facet.strip():
                raise ValueError(f"'{facet}' cannot name a type-tag facet")
            if not all(name.strip() for name in names):
                raise ValueError(f"facet '{facet}' has an empty tag")
        return tags


class ScanQuery(BaseModel):
    """One record of a SCAN query file."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    id: Text
    prompt: Text
    meta_data: _MetaData
    source: JsonValue = None

    def item(self) -> Item:
        """The query as an Item with its domain and type tags."""
        tags = {DOMAIN_FACET: [self.meta_data.domain]}
        for facet, names in self.meta_data.type_tags.items():
            tags[facet.strip()] = [name.strip() for name in names]
        meta = {"question_quality": self.meta_data.question_quality, "source": self.source}
        return Item(
            id=self.id,
            messages=[{"role": "user", "content": self.prompt}],
            tags=tags,
            meta={META_KEY: meta},
        )


def load_scan_queries(path: str | Path) -> list[Item]:
    """Every record of a SCAN query file as an Item; the first bad record stops the load."""
    return [
        validate(ScanQuery, record, path=path, line=line).item()
        for line, record in iter_json_records(path)
    ]


def _below(taxonomy: Taxonomy, base: str, name: str) -> list[str]:
    """Paths of the nodes strictly below `base` named `name` (case-insensitive)."""
    want = name.strip().casefold()
    return [
        path
        for path, node in taxonomy.walk()
        if path != base and is_within(path, base) and node.name.casefold() == want
    ]


def type_tag_paths(item: Item, taxonomy: Taxonomy) -> list[str]:
    """The taxonomy paths of a SCAN item's type tags: facet F of domain D is the node D/F (or
    the one node named F below D); a tag is the one node of that name below the facet, and
    "Other" the facet itself. An item without type tags sits at its domain (at no node when
    the taxonomy lacks it). A facet or tag the taxonomy cannot place is an InputError."""
    domain = next(iter(item.tag(DOMAIN_FACET)), "")
    facets = {k: v for k, v in item.tags.items() if k not in (DOMAIN_FACET, TAXONOMY_FACET)}
    if not taxonomy.has(domain):
        if facets:
            raise InputError(f"item '{item.id}': the taxonomy has no domain '{domain}'")
        return []
    paths = [domain]
    for facet, names in facets.items():
        direct = join_path(domain, facet)
        found = [direct] if taxonomy.has(direct) else _below(taxonomy, domain, facet)
        if len(found) != 1:
            raise InputError(
                f"item '{item.id}': facet '{facet}' names {len(found)} nodes under '{domain}', "
                "not one",
                field=f"tags.{facet}",
            )
        for name in names:
            matches = found if name.casefold() == NO_MATCH else _below(taxonomy, found[0], name)
            if len(matches) != 1:
                raise InputError(
                    f"item '{item.id}': tag '{name}' names {len(matches)} nodes under "
                    f"'{found[0]}', not one",
                    field=f"tags.{facet}",
                )
            paths.append(matches[0])
    return list(dict.fromkeys(paths))
