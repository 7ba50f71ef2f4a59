"""TaxBuilder (SCAN): grow a capability taxonomy from real queries with a model's decisions.

1. Extract: per query, the model names 1..`max_tags` capabilities (lowercase name without a
   slash, one-sentence description).
2. Insert: each capability descends from the root one level at a time. At the root the model
   picks one of the domains; at any other node it picks "exists" (the node or one of its
   children already means it), "add here" (it becomes a new child) or the name of a child to
   descend into. The choices are a schema enum, so the answer names a real option.
3. Refine: every parent with at least two children (as the tree stood when refinement began)
   gets one decision about its children: keep, merge, reparent, delete or split (a leaf into
   2-3 parts). Decisions go through the pure tree operations; one they refuse (a merge of a
   node into itself, a split of a node with children, a name clash) is rejected and recorded,
   never applied.
4. Prune: rule-based layer pruning (`prune.prune`), which also maps old paths to new ones.

`decisions` holds the answers and the tree operations they map to; `build` runs a build over a
run store, resumably.
"""

from checkbench.scan.builder.build import (
    PLAN_KIND,
    STEP_KIND,
    TAGS_KIND,
    TaxBuilderReport,
    TaxBuilderSettings,
    TaxBuildResult,
    build_taxonomy,
)
from checkbench.scan.builder.decisions import Decision, Tag, apply_decision, apply_step

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
