"""Benchmarks from real conversation logs: Conv-to-Bench and FB-Bench-style curation.

`build.build_benchmark` (the `checkbench convbench build` command) runs the stages below over a
`BuildSpec` (`spec`, with the `BuildEngine` that says where the heavy work runs: here, or on
Ray workers with `ray_engine`); `build.preview_build` runs only the cheap ones (`first_pass`)
and writes nothing. `api` holds the API functions (build, preview, score). Heavy dependencies
(the `build` extra: wordllama, scikit-learn, pyarrow, jieba) are imported only when used.

Reading and rules, no model:
- `ingest`: stream conversations from OpenAI-messages, ShareGPT, LMSYS-Chat-1M and WildChat logs
  (JSONL, gzipped JSONL or Parquet); malformed records are skipped and counted, or raise.
- `logs`: several logs as one stream, with a per-log limit and duplicate ids rejected.
- `curate` (selection) and `markers`: conversations where a later assistant turn concedes a
  disputed reply (apologises or admits it, English or Chinese), under a token limit.
- `embed`, `topics`, `topic_report`, `segment`, `vocab`: the first tier of the domain filter:
  cluster first user messages (wordllama, with character n-grams for Chinese), label clusters
  with c-TF-IDF keywords (words of any script, Chinese segmented), keep clusters whose keywords
  match a domain vocabulary (built-in coding, math, writing in English and Chinese, or the
  user's).

Model stages (`build.model_stages` runs each mode's in order; `decisions` runs each through the
run store: cached, resumable, counted, recorded):
- `domain`: the second tier, a zero-shot yes/no on each first user message.
- `instruction`: one self-contained instruction from the whole user side, then the quality filter.
- `feedback`: each later user message labelled positive, negative or neither.
- `checklist`: atomic yes/no requirements, each citing its source.
- `curate` (drafting): FB-Bench samples replaying the user's own feedback, with its type, the
  task and a weighted checklist.

After the build: `report` (what every stage kept and dropped), `difficulty` (drop items every
weak model aces), `bench_scores` and `rank_agreement` (scores in two check modes, correlation
with a reference leaderboard).
"""
