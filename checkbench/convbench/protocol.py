"""Conv-to-Bench's registration: how `run` scores a run that no other protocol claims (the
mean of each item's checks). Light: each hook imports the modules it needs when called."""

from __future__ import annotations

from typing import Any

from checkbench.registry import Protocol, RunScorer


def _fits(store: Any) -> bool:
    """Every checklist run can be scored by the mean of its items' checks."""
    return True


def _score(store: Any, judge: str, *, policy: str = "exclude") -> Any:
    from checkbench.convbench.scoring import store_bench_scores

    return store_bench_scores(store, judge, policy=policy)


def _show(scores: Any) -> None:
    from checkbench.cli.score import print_scores
    from checkbench.console.render import console

    console.print("Scored by the Conv-to-Bench protocol (mean of each item's checks).")
    print_scores(scores, None)


PROTOCOL = Protocol(
    name="convbench",
    title="Conv-to-Bench",
    api={
        "checkbench.convbench.api": ("build", "preview", "score"),
        "checkbench.convbench.scoring": ("BenchScores",),
        "checkbench.convbench.spec": ("BuildSpec",),
        "checkbench.convbench.summary": ("BuildSummary", "TopicPreview"),
    },
    scorer=RunScorer(name="conv-to-bench", fits=_fits, score=_score, show=_show, command="score"),
)
