"""The Python API: each function is what one CLI command does.

A thin facade: the functions live in the evaluation flow (`checkbench.evaluation.flow`), in
private modules (`_report`, `_judges`, ...) and in each registered protocol (its `api` exports,
from the registry: FB-Bench's `leaderboard`, ...); `__all__` lists every function and the
settings and result types a caller needs.

Names are imported lazily (module `__getattr__`, PEP 562): `api.leaderboard` loads what the
leaderboard needs, not the models and modules of every other command.
"""

from __future__ import annotations

from checkbench import registry
from checkbench.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    # functions, one per CLI command
    "checkbench.evaluation.flow": (
        "GenerationResult",
        "JudgingResult",
        "RunResult",
        "ScoringResult",
        "generate",
        "judge",
        "judge_id",
        "prepare_run",
        "run",
    ),
    "checkbench.api._judges": ("calibrate", "reference_agreement", "export_labels"),
    "checkbench.compare": (
        "CompareSettings",
        "Comparison",
        "Delta",
        "FlippedCheck",
        "Flips",
        "MovedItem",
        "TagDelta",
        "compare",
        "compare_each",
    ),
    "checkbench.api._cascade": ("cascade",),
    "checkbench.api._report": ("report", "view"),
    "checkbench.api._audit": ("audit",),
    # settings and results
    "checkbench.distributed": ("Executor", "RayExecutor"),
    "checkbench.generation.requests": ("GenerationSettings",),
    "checkbench.judges.calibration": (
        "apply_calibration",
        "Calibration",
        "CalibrationFit",
        "CalibrationReport",
        "SplitFacts",
    ),
    "checkbench.judges.checklist": ("JudgeSettings",),
    "checkbench.judges.cascade": ("CascadeSettings", "CascadeSummary"),
    "checkbench.judges.human": ("JudgeAgreement", "judge_agreement"),
    "checkbench.judges.reference": ("ModelShift", "RankingEffect", "ReferenceAgreement"),
    "checkbench.llm": ("ModelOptions",),
    "checkbench.scoring.settings": ("ScoringSettings",),
    "checkbench.steps.progress": ("ProgressSink",),
    "checkbench.steps.stage": ("StageSummary",),
    "checkbench.audit.run": ("AuditReport",),
    "checkbench.audit.settings": ("AuditSettings",),
    "checkbench.store": ("RunStore",),
    "checkbench.steps.slices": ("Slice",),
    "checkbench.steps.budget": ("CostLimit", "OverBudget"),
}
"""module -> the names the API takes from it, beside the protocols' own."""
for _protocol in registry.protocols():
    _EXPORTS.update(_protocol.api)

__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
