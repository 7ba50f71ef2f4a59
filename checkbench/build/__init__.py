"""Conv-to-Bench builder: real conversation logs become checklist benchmarks.

The non-LLM stages live here and import their heavy dependencies (the `build` extra:
wordllama, scikit-learn, pyarrow) only when used:

- `ingest`: stream conversations from OpenAI-messages, ShareGPT, LMSYS-Chat-1M and WildChat logs
  (JSONL, gzipped JSONL or Parquet); malformed records are skipped and counted, or raise.
- `embed`: the `Embedder` protocol and its backends (wordllama offline by default,
  sentence-transformers, any OpenAI-compatible /v1/embeddings endpoint).
- `topics`: the first tier of the domain filter: cluster first user messages, label clusters
  with class-based TF-IDF keywords, keep clusters whose keywords match a domain vocabulary.
- `vocab`: the built-in domain vocabularies (coding, math, writing) and user word lists.
"""
