"""SCAN capability taxonomy: the tree as data, rule-based pruning, and navigation of results.

- `tree`: `Taxonomy` / `Node` (pydantic, JSON on disk), validated loading, pure edit operations,
  diffs and a rich tree view.
- `prune`: layer pruning (collapse single-child nodes, limit depth below a domain).
- `navigate`: per-node scores, intervals and ranks per model; strengths, weaknesses, unstable
  parents and the nodes where models differ most.
"""
