"""A fake OpenAI-compatible server, shared by the tests and the benchmarks (bench/)."""

from checkbench.testing.answers import (
    ANSWER,
    CANNED,
    Answer,
    Reply,
    completion,
    default_answer,
    deterministic,
    echo_answer,
    instant_answer,
    priced,
    schema_answer,
    schema_of,
    smallest_instance,
    verdicts,
)
from checkbench.testing.batch import BatchSettings
from checkbench.testing.openai_server import OpenAIServer, ServerProcess
from checkbench.testing.replay import ReplayJudge

__all__ = [
    "ANSWER",
    "CANNED",
    "Answer",
    "BatchSettings",
    "OpenAIServer",
    "Reply",
    "ReplayJudge",
    "ServerProcess",
    "completion",
    "default_answer",
    "deterministic",
    "echo_answer",
    "instant_answer",
    "priced",
    "schema_answer",
    "schema_of",
    "smallest_instance",
    "verdicts",
]
