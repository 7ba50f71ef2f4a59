"""Running generation, judging and builds on a Ray cluster, for work that outgrows one machine.

`generation` and `judging` pick a stage by executor: "local" (the stages of `generate` and
`judges.stage`), or Ray (`RayExecutor`), whose workers make the model calls and whose driver
alone writes the run store; `build_engine` is where a Conv-to-Bench build's heavy work runs.
Ray is imported only when a Ray stage runs.
"""

from __future__ import annotations

from checkbench.distributed.build import build_engine
from checkbench.distributed.executor import Executor, ExecutorName, RayExecutor, executor_named
from checkbench.distributed.stages import LOCAL_STAGES, Stages, generation, judging

__all__ = [
    "LOCAL_STAGES",
    "Executor",
    "ExecutorName",
    "RayExecutor",
    "Stages",
    "build_engine",
    "executor_named",
    "generation",
    "judging",
]
