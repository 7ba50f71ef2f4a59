"""FB-Bench: responding to user feedback (error correction and response maintenance).

- `dataset`: the 591-sample release format as Items (weighted EC checklists, RM alternatives).
- `judgments`: the authors' published judgment files as Items, Responses and Verdicts;
  `matching` pairs the judge's entries with the checks, `versions` reconciles a sample seen in
  files from different dataset versions and summarises an import.
- `scoring`: the leaderboard (macro over (scenario, task) groups) and its breakdowns.
- `difficulty`: the post-filter that drops samples every weak model answers perfectly.
- `api`: its API functions (importing published judgments, the post-filter); `cli`: its
  commands (`checkbench fbbench import|filter`) and the leaderboard's terminal tables;
  `report`: its leaderboards in the HTML report; `protocol`: its registration
  (`checkbench.registry`), which also names how `run` scores an FB-Bench run.

Curation of FB-Bench-style items from conversation logs is a mode of the build from logs
(`checkbench.convbench`, `--curate feedback`): it runs on that build's reading and stages, and
writes items in the format scored here.
"""
