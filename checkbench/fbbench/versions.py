"""One sample seen in several judgment files: the same sample or a conflict, and the summary
of what an import found.

The published files come from two versions of the dataset, so the same sample (same
user_query and feedback, ignoring whitespace: the item id) can differ between files:
- in whitespace only (any text field): the first version read is kept, the difference counted;
- in wording, where a later dataset version reworded it (VERSIONED fields: a check's text, the
  reference answer): each file's wording is kept with its own responses, and counted;
- in anything else (task, types, the first response's words, a check's weight or the number of
  checks): these are different samples under one identity, an input error.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from checkbench.fbbench.dataset import squeeze
from checkbench.fbbench.matching import How
from checkbench.schema import Item

Difference = Literal["whitespace", "wording"]

VERSIONED = ("checklist", "reference_second_response")
"""Sample fields whose wording may differ between files; each file's own wording is kept."""


def sample_fields(item: Item) -> dict[str, Any]:
    """An FB-Bench item as the fields of the sample it was read from."""
    query, first, feedback = (message.content for message in item.messages)
    return {
        "bench_type": item.tag("bench_type"),
        "task_type": item.tag("task"),
        "sub_task_type": item.tag("subtask"),
        "user_query": query,
        "origin_first_response": first,
        "feedback": feedback,
        "error_type": item.tag("deficiency"),
        "feedback_type": item.tag("feedback_type"),
        "checklist": [[check.text, check.weight] for check in item.checklist],
        "reference_second_response": item.reference,
    }


def _squeezed(value: Any) -> Any:
    """The value with whitespace removed from every string in it."""
    if isinstance(value, str):
        return squeeze(value)
    if isinstance(value, list):
        return [_squeezed(entry) for entry in value]
    return value


def _shape(checklist: list[list[Any]]) -> list[Any]:
    """What a reworded checklist must keep: the number of checks and their weights."""
    return [weight for _, weight in checklist]


def differences(known: Item, other: Item) -> tuple[dict[str, Difference], str | None]:
    """How `other` differs from the `known` version of the same sample, field by field, and
    the first field where it is a different sample (None when it is the same sample)."""
    old, new = sample_fields(known), sample_fields(other)
    found: dict[str, Difference] = {}
    for name, value in new.items():
        if value == old[name]:
            continue
        if _squeezed(value) == _squeezed(old[name]):
            found[name] = "whitespace"
        elif name in VERSIONED and (name != "checklist" or _shape(value) == _shape(old[name])):
            found[name] = "wording"
        else:
            return found, name
    return found, None


def own_versions(item: Item, found: dict[str, Difference]) -> dict[str, Any]:
    """The item's values of the fields whose wording differs from the known version."""
    fields = sample_fields(item)
    return {name: fields[name] for name, kind in found.items() if kind == "wording"}


class ImportSummary(BaseModel):
    """What an import of judgment files read and found, for one-line reports."""

    files: int = 0
    records: int = 0
    samples: int = 0
    models: int = 0
    differing_samples: int = 0
    """Samples whose versions differ between files (in any field)."""
    whitespace: dict[str, int] = Field(default_factory=dict)
    """Sample field -> samples whose versions differ in whitespace only."""
    wording: dict[str, int] = Field(default_factory=dict)
    """Sample field -> samples whose versions differ in wording (each file's kept)."""
    matched: dict[str, int] = Field(default_factory=dict)
    """How judgment entries were matched to checks (see `matching`) -> entries."""
    unjudged: int = 0
    """Checks without a judgment entry: counted as not met, as the published scores do."""
    unmatched: int = 0
    """Judgment entries that answer no check (kept on their responses)."""
    echoed_weights: int = 0
    """Entries whose echoed weight differs from their check's weight."""
    failed: int = 0
    """Failed judgments: every check unscored."""

    def lines(self) -> list[str]:
        """The summary: what was read, what differed between files, how entries matched."""
        return [
            f"read {self.records} judgment records of {self.models} models on "
            f"{self.samples} samples from {self.files} files",
            self.differences_line(),
            self.matching_line(),
        ]

    def differences_line(self) -> str:
        """How many samples differ between files, and in which fields."""
        if not self.differing_samples:
            return "no sample differs between files"
        parts = []
        for kind, counts, note in (
            ("whitespace", self.whitespace, ""),
            ("wording", self.wording, " (each file's wording kept with its responses)"),
        ):
            if counts:
                listed = ", ".join(f"{name} ({n})" for name, n in sorted(counts.items()))
                parts.append(f"{kind} in {listed}{note}")
        n = self.differing_samples
        differ = "sample differs" if n == 1 else "samples differ"
        return f"{n} {differ} between files: " + "; ".join(parts)

    def matching_line(self) -> str:
        """How judgment entries were matched to checks, and what could not be."""
        how = ", ".join(f"{n} {name}" for name, n in self.matched.items() if n)
        return (
            f"judgment entries matched to checks: {how or 'none'}; "
            f"{_count(self.unjudged, 'check')} without an entry (counted as not met, as "
            f"published); {_count(self.unmatched, 'entry', 'entries')} matching no check; "
            f"{_count(self.echoed_weights, 'echoed weight')} differing from the check's; "
            f"{_count(self.failed, 'failed judgment')} (unscored)"
        )


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


class Tally:
    """Counts gathered while reading, turned into an ImportSummary at the end."""

    def __init__(self) -> None:
        self.files = 0
        self.records = 0
        self.models: set[str] = set()
        self.differing: dict[Difference, dict[str, set[str]]] = {
            "whitespace": defaultdict(set),
            "wording": defaultdict(set),
        }
        self.matched: Counter[How] = Counter({"exact": 0, "whitespace": 0})
        self.unjudged = 0
        self.unmatched = 0
        self.echoed_weights = 0
        self.failed = 0

    def differences(self, item_id: str, found: dict[str, Difference]) -> None:
        for name, kind in found.items():
            self.differing[kind][name].add(item_id)

    def summary(self, samples: Iterable[str]) -> ImportSummary:
        differing = {
            item_id for kind in self.differing.values() for ids in kind.values() for item_id in ids
        }
        return ImportSummary(
            files=self.files,
            records=self.records,
            samples=len(set(samples)),
            models=len(self.models),
            differing_samples=len(differing),
            whitespace={name: len(ids) for name, ids in self.differing["whitespace"].items()},
            wording={name: len(ids) for name, ids in self.differing["wording"].items()},
            matched={
                how: self.matched[how] for how in ("exact", "whitespace", "closest", "position")
            },
            unjudged=self.unjudged,
            unmatched=self.unmatched,
            echoed_weights=self.echoed_weights,
            failed=self.failed,
        )
