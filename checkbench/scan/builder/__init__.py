"""TaxBuilder (SCAN): grow a capability taxonomy from real queries with a model's decisions.

1. Extract: per query, the model names 1..`max_tags` capabilities (a short lowercase phrase of
   plain words that does not copy the query, `names`; a one-sentence description).
2. Insert: each capability descends from the root one level at a time, shown the node, its
   siblings and its children. At the root the model picks one of the domains; at any other
   node "exists" (the node or one of its children already means it), "add here" (it becomes a
   new child; not at `max_depth`), "add beside" (a new sibling, below the domains) or the name
   of a child to descend into. The choices are a schema enum, so the answer names a real
   option.
3. Refine: every parent with at least two children (as the tree stood when refinement began)
   gets one decision about its children: keep, merge, reparent, delete or split (a leaf into
   2-3 parts). Decisions go through the pure tree operations; one they refuse (a merge of a
   node into itself, a split of a node with children, a name clash) is rejected and recorded,
   never applied, and so is one that would make the tree deeper than `max_depth`.
4. Prune: rule-based layer pruning (`prune.prune`), which also maps old paths to new ones.

`decisions` holds the answers and the tree operations they map to, `names` the name guards;
`build` runs a build over a run store, resumably; `report` counts what it did and what failed.
"""

from checkbench.scan.builder.build import (
    PLAN_KIND,
    STEP_KIND,
    TAGS_KIND,
    TaxBuilderSettings,
    TaxBuildResult,
    build_taxonomy,
)
from checkbench.scan.builder.decisions import Decision, Tag, apply_decision, apply_step
from checkbench.scan.builder.report import TaxBuilderReport

__all__ = [
    "PLAN_KIND",
    "STEP_KIND",
    "TAGS_KIND",
    "Decision",
    "Tag",
    "TaxBuildResult",
    "TaxBuilderReport",
    "TaxBuilderSettings",
    "apply_decision",
    "apply_step",
    "build_taxonomy",
]
