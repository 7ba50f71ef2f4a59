"""Benchmarks from real conversation logs: Conv-to-Bench and FB-Bench-style curation.

`pipeline.build_benchmark` (the `checkbench build` command) runs the stages below over a
`BuildSpec`; heavy dependencies (the `build` extra: wordllama, scikit-learn, pyarrow) are
imported only when used.

Reading and rules, no model:
- `ingest`: stream conversations from OpenAI-messages, ShareGPT, LMSYS-Chat-1M and WildChat logs
  (JSONL, gzipped JSONL or Parquet); malformed records are skipped and counted, or raise.
- `logs`: several logs as one stream, with a per-log limit and duplicate ids rejected.
- `curate` (selection): conversations where a later assistant turn apologises, under a token
  limit.
- `embed`, `topics`, `topic_report`, `vocab`: the first tier of the domain filter: cluster first
  user messages, label clusters with c-TF-IDF keywords, keep clusters whose keywords match a
  domain vocabulary (built-in coding, math, writing, or the user's).

Model stages (`stages` runs them through the run store: cached, resumable, counted, recorded):
- `domain`: the second tier, a zero-shot yes/no on each first user message.
- `instruction`: one self-contained instruction from the whole user side, then the quality filter.
- `feedback`: each later user message labelled positive, negative or neither.
- `checklist`: atomic yes/no requirements, each citing its source.
- `curate` (drafting): FB-Bench samples with a simulated feedback and a weighted checklist.

After the build: `report` (what every stage kept and dropped), `difficulty` (drop items every
weak model aces), `bench_scores` and `rank_agreement` (scores in two check modes, correlation
with a reference leaderboard).
"""
