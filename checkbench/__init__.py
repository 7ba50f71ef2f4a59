"""checkbench: checklist-grounded evaluation of LLMs and of their judges.

Models answer benchmark items; a judge checks every answer against the item's checklist of
atomic yes/no requirements; scores (0-100) come with 95% bootstrap intervals. Four research
protocols in one toolkit: FB-Bench (answering user feedback), Conv-to-Bench (benchmarks from
conversation logs), IF-RewardBench (judging the judges) and SCAN (capability taxonomies).
Everything runs on an embedded SmolLM2-135M model (llama.cpp) or any OpenAI-compatible endpoint.

From the shell (`checkbench --help`; the tests walk every command the docs show):

    checkbench run examples/feedback-mini.jsonl --model local --judge local --out runs/demo
    checkbench report runs/demo

From Python, `checkbench.api` has one function per command, returning pydantic models:

    from checkbench import api
    result = api.run("examples/feedback-mini.jsonl", ["local"], "local", "runs/demo")
    board = api.leaderboard("runs/demo").scores  # the same scores, read from the run store

The data model is re-exported here: an `Item` holds `Message`s and a checklist of `Check`s
with its scoring rule and tags; a `Response` is a model's answer (with its `Usage`); a
`Verdict` is a judge's yes/no/unscored on one check. `RunStore` opens a run directory.

Documentation: README.md (the front page), docs/ (a guide per protocol, judges, models, reports,
the CLI reference), docs/protocols.md (the four protocols, the scales, intervals and words every
table uses), docs/architecture.md (the package layout).
"""

from checkbench.lazy import lazy_exports

__version__ = "0.1.0"

_DATA_MODEL = {
    "checkbench.schema": ("Check", "Item", "Message", "Response", "Usage", "Verdict"),
    "checkbench.store": ("RunStore",),
}
"""The re-exported data model (module -> names), imported on first use, so that importing any
part of checkbench (the CLI first) does not load pydantic models it may not need. Without
__all__: help() then shows this docstring, not every pydantic internal of these classes
(help(checkbench.Item) has them)."""
__getattr__, __dir__ = lazy_exports(__name__, _DATA_MODEL)
