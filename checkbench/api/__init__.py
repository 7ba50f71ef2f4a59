"""The Python API: each function is what one CLI command does.

A thin facade: the functions live in private modules (`_evaluate`, `_build`, `_meta`, `_scan`,
`_report`, `_judges`), which open the model backends and run the event loop; `__all__` lists
every function and the settings and result types a caller needs.
"""

from __future__ import annotations

from checkbench.api._build import build, filter_by_difficulty, preview, score
from checkbench.api._evaluate import (
    Protocol,
    generate,
    import_fbbench_judgments,
    judge,
    leaderboard,
    prepare_run,
    run,
)
from checkbench.api._judges import apply_calibration, calibrate, reference_agreement
from checkbench.api._meta import meta_run
from checkbench.api._report import report, view
from checkbench.api._scan import (
    taxonomy_build,
    taxonomy_navigate,
    taxonomy_pc2,
    taxonomy_synthesize,
    taxonomy_tag,
)
from checkbench.convbench.pipeline import BuildSpec
from checkbench.convbench.scoring import BenchScores
from checkbench.convbench.summary import BuildSummary, TopicPreview
from checkbench.distributed import Executor, RayExecutor
from checkbench.fbbench.difficulty import DifficultyReport
from checkbench.fbbench.scoring import FBBenchLeaderboard
from checkbench.fbbench.versions import ImportSummary
from checkbench.generate import GenerationSettings
from checkbench.ifrewardbench.metrics import MetaReport
from checkbench.ifrewardbench.run import JudgeResult, MetaRun, MetaSettings, meta_report
from checkbench.judges.calibration import Calibration, CalibrationReport, SplitFacts
from checkbench.judges.checklist import JudgeSettings
from checkbench.judges.human import JudgeAgreement, judge_agreement
from checkbench.judges.pc2 import PC2Result, PC2Settings
from checkbench.judges.reference import ModelShift, RankingEffect, ReferenceAgreement
from checkbench.llm import ModelOptions
from checkbench.scan.builder import TaxBuilderSettings, TaxBuildResult
from checkbench.scan.navigation import Navigation, NavigationSettings
from checkbench.scan.realmix import MixResult, MixSettings
from checkbench.scan.tagging import TagResult, TagSettings
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore

__all__ = [
    # functions, one per CLI command
    "apply_calibration",
    "build",
    "calibrate",
    "filter_by_difficulty",
    "generate",
    "import_fbbench_judgments",
    "judge",
    "judge_agreement",
    "leaderboard",
    "meta_report",
    "meta_run",
    "prepare_run",
    "preview",
    "reference_agreement",
    "report",
    "run",
    "score",
    "taxonomy_build",
    "taxonomy_navigate",
    "taxonomy_pc2",
    "taxonomy_synthesize",
    "taxonomy_tag",
    "view",
    # settings
    "BuildSpec",
    "GenerationSettings",
    "Executor",
    "RayExecutor",
    "JudgeSettings",
    "MetaSettings",
    "MixSettings",
    "ModelOptions",
    "NavigationSettings",
    "PC2Settings",
    "ProgressSink",
    "TagSettings",
    "TaxBuilderSettings",
    # results
    "BenchScores",
    "Protocol",
    "BuildSummary",
    "TopicPreview",
    "Calibration",
    "CalibrationReport",
    "DifficultyReport",
    "FBBenchLeaderboard",
    "ImportSummary",
    "JudgeAgreement",
    "JudgeResult",
    "MetaReport",
    "MetaRun",
    "MixResult",
    "ModelShift",
    "Navigation",
    "PC2Result",
    "RankingEffect",
    "ReferenceAgreement",
    "RunStore",
    "SplitFacts",
    "StageSummary",
    "TagResult",
    "TaxBuildResult",
]
