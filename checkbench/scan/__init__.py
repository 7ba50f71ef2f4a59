"""SCAN capability taxonomy: the tree as data, how it grows, how items get onto it, the PC^2
judge, and navigation of results over it.

- `paths`: slash paths that address nodes ("coding/debugging").
- `tree`: `Taxonomy` / `Node` (pydantic, JSON on disk), validated loading, pure edit operations,
  diffs and a rich tree view.
- `formats`: taxonomy files in checkbench's format or SCAN's nested one, read and written.
- `queries`: SCAN's released query files as Items, and their type tags as taxonomy paths.
- `prune`: layer pruning (collapse single-child nodes, limit depth below a domain).
- `domains`: the seven SCAN domains and the seed taxonomy made of them.
- `builder`: TaxBuilder, a taxonomy grown from queries by model decisions (insert, refine).
- `tagging`: a domain and hierarchical taxonomy tags for every item.
- `realmix`: synthesized, quality-filtered queries for leaves with too few items.
- `navigation`: per-node scores, intervals and ranks per model; strengths, weaknesses, unstable
  parents and the nodes where models differ most (the result's models and their computation);
  `navigation_view`: its terminal renderings, with notes that explain what is not ranked.
- `pc2`: the PC^2 judge, which grades responses against criteria derived from auxiliary answers.
"""
