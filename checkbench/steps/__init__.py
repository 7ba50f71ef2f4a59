"""The model-step kit: every model call of a run goes through a `Caller` (cache, limits,
retries, accounting), structured answers are asked for with bounded re-asks, and a stage's
work is counted and shown as it goes."""
