"""IF-RewardBench's registration: its command (and its old name), its API and what the report
shows of a judge meta-evaluation. Light: each hook imports the modules it needs when called."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checkbench.registry import Alias, Protocol


def _cli() -> Any:
    from checkbench.ifrewardbench.cli import app

    return app


def _leaderboards(run: Any) -> list[dict[str, Any]] | None:
    from checkbench.ifrewardbench.report import leaderboards

    return leaderboards(run)


def _judge_records() -> Sequence[Any]:
    from checkbench.ifrewardbench.report import judge_records

    return judge_records()


PROTOCOL = Protocol(
    name="ifrewardbench",
    title="IF-RewardBench",
    cli=_cli,
    aliases=(Alias("meta", "ifrewardbench run"),),
    api={
        "checkbench.ifrewardbench.api": ("meta_run",),
        "checkbench.ifrewardbench.metrics": ("MetaReport",),
        "checkbench.ifrewardbench.run": ("JudgeResult", "MetaRun", "MetaSettings", "meta_report"),
    },
    leaderboards=_leaderboards,
    judge_records=_judge_records,
)
