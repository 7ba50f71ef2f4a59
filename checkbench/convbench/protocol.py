"""Conv-to-Bench's registration: its commands (and their old names), its API, and how `run`
scores a run that no other protocol claims (the mean of each item's checks). Light: each hook
imports the modules it needs when called."""

from __future__ import annotations

from typing import Any

from checkbench.registry import Alias, Protocol, RunScorer


def _fits(store: Any) -> bool:
    """Every checklist run can be scored by the mean of its items' checks."""
    return True


def _score(
    store: Any, judge: str, settings: Any = None, *, checklists: Any = None, headline: bool = False
) -> Any:
    """Conv-to-Bench's scores are all headline; unscored items are left out by default."""
    from checkbench.convbench.scoring import store_bench_scores
    from checkbench.scoring.refined import chosen_checklists

    if settings is None:
        return store_bench_scores(store, judge, checklists=checklists)
    if checklists is None:
        checklists = chosen_checklists(store, settings.checklist)
    return store_bench_scores(
        store, judge, policy=settings.policy, seed=settings.seed, checklists=checklists
    )


def _paired(store: Any) -> Any:
    from checkbench.scoring import ScoreLayout

    return ScoreLayout.item_means(store, "exclude")


def _show(scores: Any) -> None:
    from checkbench.console.render import console
    from checkbench.console.tables import print_grid
    from checkbench.convbench.cli import score_grids

    console.print("Scored by the Conv-to-Bench protocol (mean of each item's checks).")
    for grid in score_grids(scores, None):
        print_grid(grid, console)


def _grids(scores: Any) -> list[Any]:
    from checkbench.convbench.cli import score_grids

    return score_grids(scores, None)


def _cli() -> Any:
    from checkbench.convbench.cli import app

    return app


PROTOCOL = Protocol(
    name="convbench",
    title="Conv-to-Bench",
    cli=_cli,
    aliases=(
        Alias("build from-logs", "convbench build"),
        Alias("build", "convbench build"),
        Alias("score", "convbench score"),
    ),
    api={
        "checkbench.convbench.api": ("build", "preview", "score"),
        "checkbench.convbench.build": ("BuildResult",),
        "checkbench.convbench.scoring": ("BenchScores",),
        "checkbench.convbench.spec": ("BuildSpec",),
        "checkbench.convbench.summary": ("BuildSummary", "TopicPreview"),
    },
    scorer=RunScorer(
        name="conv-to-bench",
        fits=_fits,
        score=_score,
        show=_show,
        command="convbench score",
        paired=_paired,
        grids=_grids,
    ),
)
