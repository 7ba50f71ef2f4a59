"""FB-Bench's registration: its released sample format, its commands (and their old names),
its API, its report leaderboards and how `run` scores its runs. Light: each hook imports the
modules it needs when called."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from checkbench.registry import Alias, BenchmarkFormat, Protocol, RunScorer, ScoreStrata


def _load(path: Path) -> list[Any]:
    from checkbench.fbbench.dataset import load_fbbench

    return load_fbbench(path)


def _cli() -> Any:
    from checkbench.fbbench.cli import app

    return app


def _leaderboards(run: Any) -> list[dict[str, Any]] | None:
    from checkbench.fbbench.report import leaderboards

    return leaderboards(run)


def _fits(store: Any) -> bool:
    from checkbench.fbbench.scoring import is_fbbench_store

    return is_fbbench_store(store)


def _score(
    store: Any, judge: str, settings: Any = None, *, checklists: Any = None, headline: bool = False
) -> Any:
    from checkbench.fbbench.scoring import score_run

    return score_run(store, judge, settings, checklists=checklists, headline=headline)


def _paired(store: Any) -> Any:
    from checkbench.fbbench.scoring import score_layout

    return score_layout(store)


def _show(board: Any) -> None:
    from checkbench.fbbench.cli import show_scored

    show_scored(board)


def _grids(board: Any) -> list[Any]:
    from checkbench.fbbench.cli import TABLE_FACETS, breakdown_grids, leaderboard_grid

    return [leaderboard_grid(board), *breakdown_grids(board, TABLE_FACETS)]


def _is_run(items: Any) -> bool:
    from checkbench.fbbench.scoring import is_fbbench_run

    return is_fbbench_run(items)


def _is_sample(record: Mapping[str, Any]) -> bool:
    return "bench_type" in record and "checklist" in record


def _strata(tags: Mapping[str, Any]) -> str | None:
    """An item's scenario and task (what FB-Bench's scores are stratified by), if it has them."""
    scenario, task = tags.get("scenario"), tags.get("task")
    return f"{scenario[0]}/{task[0]}" if scenario and task else None


PROTOCOL = Protocol(
    name="fbbench",
    title="FB-Bench",
    formats=(BenchmarkFormat("fb-bench", fits=_is_sample, load=_load),),
    cli=_cli,
    aliases=(
        Alias("import fb-bench-judgments", "fbbench import", {"--run": "--out"}),
        Alias("build filter", "fbbench filter"),
    ),
    api={
        "checkbench.fbbench.api": (
            "filter_by_difficulty",
            "import_fbbench_judgments",
            "leaderboard",
        ),
        "checkbench.fbbench.difficulty": ("DifficultyReport",),
        "checkbench.fbbench.scoring": ("FBBenchLeaderboard",),
        "checkbench.fbbench.versions": ("ImportSummary",),
    },
    leaderboards=_leaderboards,
    scorer=RunScorer(
        name="fb-bench",
        fits=_fits,
        score=_score,
        show=_show,
        command="leaderboard",
        paired=_paired,
        grids=_grids,
    ),
    score_strata=ScoreStrata(
        ranked_by="FB-Bench's score: the mean of the (scenario, task) group means",
        fits=_is_run,
        stratum=_strata,
    ),
)
