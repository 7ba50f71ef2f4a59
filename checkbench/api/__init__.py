"""The Python API: each function is what one CLI command does.

A thin facade: the functions live in private modules (`_evaluate`, `_build`, `_meta`, `_scan`,
`_report`, `_judges`), which open the model backends and run the event loop; `__all__` lists
every function and the settings and result types a caller needs.

Names are imported lazily (module `__getattr__`, PEP 562): `api.leaderboard` loads what the
leaderboard needs, not the models and modules of every other command.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS: dict[str, tuple[str, ...]] = {
    # functions, one per CLI command
    "checkbench.api._build": ("build", "filter_by_difficulty", "preview", "score"),
    "checkbench.api._evaluate": (
        "Protocol",
        "generate",
        "import_fbbench_judgments",
        "judge",
        "judge_id",
        "leaderboard",
        "prepare_run",
        "run",
    ),
    "checkbench.api._judges": ("apply_calibration", "calibrate", "reference_agreement"),
    "checkbench.api._meta": ("meta_run",),
    "checkbench.api._report": ("report", "view"),
    "checkbench.api._scan": (
        "taxonomy_build",
        "taxonomy_navigate",
        "taxonomy_pc2",
        "taxonomy_synthesize",
        "taxonomy_tag",
    ),
    # settings and results
    "checkbench.convbench.pipeline": ("BuildSpec",),
    "checkbench.convbench.scoring": ("BenchScores",),
    "checkbench.convbench.summary": ("BuildSummary", "TopicPreview"),
    "checkbench.distributed": ("Executor", "RayExecutor"),
    "checkbench.fbbench.difficulty": ("DifficultyReport",),
    "checkbench.fbbench.scoring": ("FBBenchLeaderboard",),
    "checkbench.fbbench.versions": ("ImportSummary",),
    "checkbench.generate": ("GenerationSettings",),
    "checkbench.ifrewardbench.metrics": ("MetaReport",),
    "checkbench.ifrewardbench.run": ("JudgeResult", "MetaRun", "MetaSettings", "meta_report"),
    "checkbench.judges.calibration": ("Calibration", "CalibrationReport", "SplitFacts"),
    "checkbench.judges.checklist": ("JudgeSettings",),
    "checkbench.judges.human": ("JudgeAgreement", "judge_agreement"),
    "checkbench.judges.pc2": ("PC2Result", "PC2Settings"),
    "checkbench.judges.reference": ("ModelShift", "RankingEffect", "ReferenceAgreement"),
    "checkbench.llm": ("ModelOptions",),
    "checkbench.scan.builder": ("TaxBuilderSettings", "TaxBuildResult"),
    "checkbench.scan.navigation": ("Navigation", "NavigationSettings"),
    "checkbench.scan.realmix": ("MixResult", "MixSettings"),
    "checkbench.scan.tagging": ("TagResult", "TagSettings"),
    "checkbench.steps.progress": ("ProgressSink",),
    "checkbench.steps.stage": ("StageSummary",),
    "checkbench.store": ("RunStore",),
}
"""module -> the names the API takes from it."""

_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = list(_MODULE_OF)


def __getattr__(name: str) -> Any:
    """An exported name, imported from its module on first use (then kept here)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
