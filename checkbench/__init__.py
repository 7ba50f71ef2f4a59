"""checkbench: checklist-grounded evaluation of LLMs and of their judges.

Models answer benchmark items; a judge checks every answer against the item's checklist of
atomic yes/no requirements; scores (0-100) come with 95% bootstrap intervals. Four research
protocols in one toolkit: FB-Bench (answering user feedback), Conv-to-Bench (benchmarks from
conversation logs), IF-RewardBench (judging the judges) and SCAN (capability taxonomies).
Everything runs on an embedded SmolLM2-135M model (llama.cpp) or any OpenAI-compatible endpoint.

From the shell (`checkbench --help`; the README's tour walks every command):

    checkbench run examples/feedback-mini.jsonl --model local --judge local --out runs/demo
    checkbench report runs/demo

From Python, `checkbench.api` has one function per command, returning pydantic models:

    from checkbench import api
    stages, board = api.run("examples/feedback-mini.jsonl", ["local"], "local", "runs/demo")
    board = api.leaderboard("runs/demo")      # the same scores, read from the run store

The data model is re-exported here: an `Item` holds `Message`s and a checklist of `Check`s
with its scoring rule and tags; a `Response` is a model's answer (with its `Usage`); a
`Verdict` is a judge's yes/no/unscored on one check. `RunStore` opens a run directory.

Documentation: README.md (the user's guide), docs/protocols.md (the four protocols, the
scales, intervals and words every table uses), docs/architecture.md (the package layout).
"""

# Re-exported by alias, without __all__: help() then shows this docstring and the package's
# contents, not every pydantic internal of the re-exported classes (help(checkbench.Item) has them).
from checkbench.schema import Check as Check
from checkbench.schema import Item as Item
from checkbench.schema import Message as Message
from checkbench.schema import Response as Response
from checkbench.schema import Usage as Usage
from checkbench.schema import Verdict as Verdict
from checkbench.store import RunStore as RunStore

__version__ = "0.1.0"
