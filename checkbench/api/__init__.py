"""The Python API: each function is what one CLI command does.

A thin facade: the functions live in the evaluation flow (`checkbench.evaluation.flow`) and in
private modules (`_evaluate`, `_build`, `_meta`, `_scan`, `_report`, `_judges`); `__all__` lists
every function and the settings and result types a caller needs.

Names are imported lazily (module `__getattr__`, PEP 562): `api.leaderboard` loads what the
leaderboard needs, not the models and modules of every other command.
"""

from __future__ import annotations

from checkbench.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    # functions, one per CLI command
    "checkbench.api._build": ("build", "filter_by_difficulty", "preview", "score"),
    "checkbench.api._evaluate": ("Protocol", "import_fbbench_judgments", "leaderboard"),
    "checkbench.evaluation.flow": (
        "JudgingResult",
        "RunResult",
        "generate",
        "judge",
        "judge_id",
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
    "checkbench.generation.requests": ("GenerationSettings",),
    "checkbench.ifrewardbench.metrics": ("MetaReport",),
    "checkbench.ifrewardbench.run": ("JudgeResult", "MetaRun", "MetaSettings", "meta_report"),
    "checkbench.judges.calibration": (
        "Calibration",
        "CalibrationFit",
        "CalibrationReport",
        "SplitFacts",
    ),
    "checkbench.judges.checklist": ("JudgeSettings",),
    "checkbench.judges.human": ("JudgeAgreement", "judge_agreement"),
    "checkbench.judges.pc2": ("PC2Result", "PC2Settings"),
    "checkbench.judges.reference": ("ModelShift", "RankingEffect", "ReferenceAgreement"),
    "checkbench.llm": ("ModelOptions",),
    "checkbench.scoring.settings": ("ScoringSettings",),
    "checkbench.scan.builder": ("TaxBuilderSettings", "TaxBuildResult"),
    "checkbench.scan.navigation": ("Navigation", "NavigationSettings"),
    "checkbench.scan.realmix": ("MixResult", "MixSettings"),
    "checkbench.scan.tagging": ("TagResult", "TagSettings"),
    "checkbench.steps.progress": ("ProgressSink",),
    "checkbench.steps.stage": ("StageSummary",),
    "checkbench.store": ("RunStore",),
}
"""module -> the names the API takes from it."""

__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
