"""FB-Bench: responding to user feedback (error correction and response maintenance).

- `dataset`: the 591-sample release format as Items (weighted EC checklists, RM alternatives).
- `judgments`: the authors' published judgment files as Items, Responses and Verdicts;
  `matching` pairs the judge's entries with the checks, `versions` reconciles a sample seen in
  files from different dataset versions and summarises an import.
- `scoring`: the leaderboard (macro over (scenario, task) groups) and its breakdowns.
- `difficulty`: the post-filter that drops samples every weak model answers perfectly.
"""
