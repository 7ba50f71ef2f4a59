"""IF-RewardBench: meta-evaluating judges against gold constraint labels and preference graphs.

- `dataset`: the benchmark's records (JSON list or JSONL), validated, as `MetaRecord`s.
- `records`: `MetaRecord`, its responses with gold and predicted labels, and its edges.
- `edges`: accuracy and Kendall tau_b over preference edges, averaged as the released code does.
- `pairwise`: both-order pairwise judgments and listwise rankings meta-evaluated over the edges.
- `metrics`: the whole meta-evaluation report of one judge (F1s, rankings, breakdowns).
- `run`: judging the records with one or more judges through the run store.
- `api`: its API function (`meta_run`); `cli`: `checkbench ifrewardbench run` and its
  terminal tables; `report`: what the HTML report shows of a meta-evaluation; `protocol`: its
  registration (`checkbench.registry`).
"""
