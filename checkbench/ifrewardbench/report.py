"""IF-RewardBench in the report: a judge meta-evaluation has no model leaderboard (its
responses are the benchmark's, not models under test; the Judges section ranks its judges),
and each judge's meta-evaluation report is a judge record of the Judges section."""

from __future__ import annotations

from typing import Any

from checkbench.ifrewardbench.metrics import MetaReport
from checkbench.ifrewardbench.run import META_RUN, REPORT_RECORD
from checkbench.store import RecordKind


def leaderboards(run: Any) -> list[dict[str, Any]] | None:
    """No leaderboard for a judge meta-evaluation run (`checkbench ifrewardbench run
    --judge`); None for any other run."""
    return [] if run.store.get_meta(META_RUN, False) else None


def judge_records() -> tuple[RecordKind[MetaReport]]:
    """The meta-evaluation report stored per judge."""
    return (REPORT_RECORD,)
