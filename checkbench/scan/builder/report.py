"""What a TaxBuilder build reports: outcomes per step, the model answers each step asked for
(re-asks included), failures per step and cause with one example of each, the tree's size
before and after pruning, and how many of its nodes the seed did not have.

Causes are read from the recorded problem: a name refused by the name guards (`names`), a choice
that is not an option, a failed call, invalid JSON, another answer problem; a decision the tree
operations refused is "refused by the tree".
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel

from checkbench.scan.builder.names import NOT_A_NAME
from checkbench.scan.tree import Taxonomy

CAUSES = (
    (NOT_A_NAME, NOT_A_NAME),
    ("must be one of", "not an option"),
    ("model call failed", "call failed"),
    ("JSON", "invalid JSON"),
)
"""(what the problem says, the cause counted), first match wins."""
REFUSED = "refused by the tree"


class TaxBuilderReport(BaseModel):
    """What the build did: counts per stage and outcome, the model answers each step asked
    for, failures per step (tag, insert, refine) and cause, the first problem of each cause
    (`examples`), the tree's size, and the nodes it has beyond the seed (`grown`: 0 when the
    build added nothing, or pruning folded all it added into the seed's nodes)."""

    queries: int
    extracted: int
    extraction_failed: int
    tags: int
    insert: dict[str, int]
    refine: dict[str, int]
    calls: dict[str, int]
    failures: dict[str, dict[str, int]]
    examples: dict[str, str]
    nodes_before_pruning: int
    depth_before_pruning: int
    nodes: int
    leaves: int
    depth: int
    grown: int


def _count(steps: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(step["outcome"] for step in steps))


def _cause(record: dict[str, Any]) -> str | None:
    """Why a tags record or step failed (None when it did not)."""
    if record.get("outcome") == "rejected":
        return REFUSED
    problem = record.get("problem")
    if problem is None:
        return None
    return next((cause for said, cause in CAUSES if said in problem), "other answer problem")


def _examples(records: list[dict[str, Any]]) -> dict[str, str]:
    """The first problem of each cause, up to its first ';' (a record's problems are joined
    by '; ')."""
    found: dict[str, str] = {}
    for record in records:
        cause = _cause(record)
        if cause is not None and record.get("problem"):
            found.setdefault(cause, record["problem"].split("; ")[0])
    return found


def build_report(
    tags: list[dict[str, Any]],
    steps: list[dict[str, Any]],
    seed: Taxonomy,
    unpruned: Taxonomy,
    pruned: Taxonomy,
) -> TaxBuilderReport:
    """The report from the queries' tags records, the recorded steps, and the trees."""
    by_step = {
        "tag": tags,
        "insert": [step for step in steps if step["kind"] == "insert"],
        "refine": [step for step in steps if step["kind"] == "refine"],
    }
    failed = sum(1 for record in tags if record.get("problem"))
    return TaxBuilderReport(
        queries=len(tags),
        extracted=len(tags) - failed,
        extraction_failed=failed,
        tags=sum(len(record["tags"]) for record in tags),
        insert=_count(by_step["insert"]),
        refine=_count(by_step["refine"]),
        calls={step: sum(r.get("calls", 0) for r in kept) for step, kept in by_step.items()},
        failures={
            step: dict(Counter(c for record in kept if (c := _cause(record)) is not None))
            for step, kept in by_step.items()
        },
        examples=_examples([record for kept in by_step.values() for record in kept]),
        nodes_before_pruning=len(unpruned.paths()),
        depth_before_pruning=unpruned.depth(),
        nodes=len(pruned.paths()),
        leaves=len(pruned.leaves()),
        depth=pruned.depth(),
        grown=len(set(pruned.paths()) - set(seed.paths())),
    )
