"""Running generation, judging and builds on a Ray cluster, for work that outgrows one machine.

`generation` and `judging` pick a stage by executor: "local" (the stages of `generate` and
`judges.stage`), or Ray (`RayExecutor`), whose workers make the model calls and whose driver
alone writes the run store (Conv-to-Bench builds on Ray use these in `convbench.ray_engine`).
Ray is imported only when a Ray stage runs.
"""

from __future__ import annotations

from checkbench.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "checkbench.distributed.executor": (
        "Executor",
        "ExecutorName",
        "RayExecutor",
        "executor_named",
        "probe",
    ),
    "checkbench.distributed.stages": ("LOCAL_STAGES", "Stages", "generation", "judging"),
}
"""module -> its names exported here, imported on first use (PEP 562): naming an executor does
not load the Ray stages."""

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
