"""The build report: what every stage kept and dropped and why, and what the model calls cost.

Stages form a chain: each stage sees exactly what the one before it kept, and at every stage
kept + dropped = seen. The report is stored in the run (`build-report.json` and the store's
meta) and printed as a table by the CLI.
"""

from __future__ import annotations

from pydantic import BaseModel

from checkbench.convbench.decisions import RECORD_PREFIX, StageCount
from checkbench.convbench.topic_report import TopicReport
from checkbench.store import RunStore

REPORT_FILE = "build-report.json"


class LogCount(BaseModel):
    """One input log: records read and conversations taken from it."""

    path: str
    read: int
    kept: int


class UsageCount(BaseModel):
    """Model calls and tokens of one build role (e.g. build:instruction)."""

    role: str
    model: str
    calls: int
    failed: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


class BuildSummary(BaseModel):
    """Everything a build did, from the logs read to the items written."""

    mode: str
    domain: str | None
    model: str
    bench: str
    items: int
    logs: list[LogCount]
    limit_reached: bool
    stages: list[StageCount]
    skipped_records: list[str]
    """The located errors of the first skipped records (all are counted in the stages)."""
    feedback_labels: dict[str, int] | None = None
    """Conv-to-Bench: how many later user messages got each feedback label."""
    topics: TopicReport | None = None
    usage: list[UsageCount]
    prompts: list[str]

    def broken_chain(self) -> list[str]:
        """Where the counts do not add up (empty when the report is consistent)."""
        problems = []
        for before, stage in zip([None, *self.stages], self.stages, strict=False):
            if stage.kept + stage.dropped != stage.seen:
                problems.append(f"{stage.stage}: kept + dropped != seen")
            if before is not None and stage.seen != before.kept:
                seen = f"{stage.stage} saw {stage.seen}"
                problems.append(f"{seen}, but {before.stage} kept {before.kept}")
        if self.stages and self.stages[-1].kept != self.items:
            problems.append(f"{self.items} items written, last stage kept {self.stages[-1].kept}")
        return problems


class TopicPreview(BaseModel):
    """The cheap stages of a build and its topic clusters, before any model call
    (`checkbench convbench build --stop-after topics`)."""

    mode: str
    domain: str | None
    logs: list[LogCount]
    limit_reached: bool
    stages: list[StageCount]
    skipped_records: list[str]
    topics: TopicReport | None
    """None when no conversation reached the topic filter."""


def build_usage(store: RunStore) -> list[UsageCount]:
    """Calls and tokens per build role, from the run store's call log."""
    return [
        UsageCount(
            role=row.role,
            model=row.model,
            calls=row.calls,
            failed=row.errors,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
            latency_s=round(row.latency_s, 3),
        )
        for row in store.usage()
        if row.role.startswith(RECORD_PREFIX)
    ]
