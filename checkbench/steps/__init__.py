"""The model-step kit: a `StepModel` (a backend with the `Caller` its calls go through: cache,
limits, retries, accounting) asks for answers typed by pydantic models (`answers`), with bounded
re-asks; `StageRun` counts a stage's work and shows it as it goes."""
