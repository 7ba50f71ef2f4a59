"""Conv-to-Bench's registration: its commands (and their old names), its API, and how `run`
scores a run that no other protocol claims (the mean of each item's checks). Light: each hook
imports the modules it needs when called."""

from __future__ import annotations

from typing import Any

from checkbench.registry import Alias, Protocol, RunScorer


def _fits(store: Any) -> bool:
    """Every checklist run can be scored by the mean of its items' checks."""
    return True


def _score(store: Any, judge: str, *, policy: str = "exclude") -> Any:
    from checkbench.convbench.scoring import store_bench_scores

    return store_bench_scores(store, judge, policy=policy)


def _show(scores: Any) -> None:
    from checkbench.console.render import console
    from checkbench.convbench.cli import print_scores

    console.print("Scored by the Conv-to-Bench protocol (mean of each item's checks).")
    print_scores(scores, None)


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
        "checkbench.convbench.scoring": ("BenchScores",),
        "checkbench.convbench.spec": ("BuildSpec",),
        "checkbench.convbench.summary": ("BuildSummary", "TopicPreview"),
    },
    scorer=RunScorer(
        name="conv-to-bench", fits=_fits, score=_score, show=_show, command="convbench score"
    ),
)
