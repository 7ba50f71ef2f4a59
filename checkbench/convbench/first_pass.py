"""The cheap stages of a build, decided without a model: reading the logs, concession
selection (feedback curation) and the topic filter (with a domain, or to preview the topics).

The logs are streamed once; the topic assignments wait in a scratch file for as long as the
`first_pass` context is open. Nothing is written anywhere else, so the same pass serves the
build (which then records every decision) and `--stop-after topics` (which only shows them).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from checkbench.convbench.curate import Concession, select
from checkbench.convbench.decisions import Decision, StageCount, StageTally
from checkbench.convbench.forms import FORMS
from checkbench.convbench.ingest import Conversation
from checkbench.convbench.logs import LogTally, stream_logs
from checkbench.convbench.markers import Markers
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.convbench.spec import LOCAL_ENGINE, BuildEngine, BuildSpec
from checkbench.convbench.topic_report import Assignment, Cluster, TopicReport
from checkbench.errors import CheckbenchError
from checkbench.jsonl import read_models

OFF_TOPIC = "topic cluster not in domain"
CONCESSION = "concession"


@dataclass
class FirstPass:
    """What the cheap stages decided: per-log counts, the selection, the topics, and the
    conversations chosen for the model stages with their clusters."""

    tally: LogTally
    selection: dict[str, Decision[Concession]]
    topics: TopicReport | None
    chosen: dict[str, Cluster | None]
    assignments: Path

    def counts(self) -> list[StageCount]:
        """Seen, kept and dropped (with reasons) of each cheap stage that ran."""
        read = StageTally("read")
        read.seen, read.kept = self.tally.total_read, self.tally.total_kept
        read.reasons.update(self.tally.reasons())
        counts = [read.count()]
        if self.selection:
            concession = StageTally(CONCESSION)
            for decision in self.selection.values():
                concession.add(decision)
            counts.append(concession.count())
        if self.topics is not None:
            off = self.topics.n - self.topics.kept
            counts.append(
                StageCount(
                    stage="topics",
                    seen=self.topics.n,
                    kept=self.topics.kept,
                    dropped=off,
                    reasons={OFF_TOPIC: off} if off else {},
                )
            )
        return counts

    def records(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(stage, key, record) for every decision, for the run store."""
        for rejection in self.tally.rejections:
            yield (
                "read",
                rejection.where,
                {
                    "kept": False,
                    "reason": rejection.reason,
                    "error": rejection.error,
                },
            )
        for key, decision in self.selection.items():
            record = {"kept": decision.kept, "reason": decision.reason, **decision.record}
            yield CONCESSION, key, record
        if self.topics is not None:
            for assignment in read_models(self.assignments, Assignment):
                record = {
                    "kept": assignment.kept,
                    "reason": None if assignment.kept else OFF_TOPIC,
                    "cluster": assignment.cluster,
                }
                yield "topics", assignment.id, record


@contextmanager
def first_pass(
    spec: BuildSpec,
    logs: list[Path],
    vocabulary: frozenset[str] | None,
    markers: Markers,
    engine: BuildEngine = LOCAL_ENGINE,
) -> Iterator[FirstPass]:
    """Read the logs once through the cheap stages of `spec` (topics when `vocabulary` is not
    None), parsing and embedding where `engine` says."""
    tally = LogTally()
    selection: dict[str, Decision[Concession]] = {}
    stream = stream_logs(
        logs, spec.fmt, strict=spec.strict, limit=spec.limit, tally=tally, parse=engine.parse
    )
    if spec.mode == "feedback":
        stream = _selected(stream, spec.settings, markers, selection)
    with tempfile.TemporaryDirectory(prefix="checkbench-build-") as scratch:
        assignments = Path(scratch) / "assignments.jsonl"
        if vocabulary is None:
            topics, chosen = None, {conversation.id: None for conversation in stream}
        else:
            topics = _cluster(stream, spec, vocabulary, assignments, engine)
            chosen = _chosen(topics, assignments)
        yield FirstPass(tally, selection, topics, chosen, assignments)


def _selected(
    stream: Iterable[Conversation],
    settings: ConvBenchSettings,
    markers: Markers,
    decisions: dict[str, Decision[Concession]],
) -> Iterator[Conversation]:
    """Conversations that pass concession selection; every decision is kept for the records."""
    for conversation in stream:
        decision = select(conversation, settings, markers)
        decisions[conversation.id] = decision
        if decision.kept:
            yield conversation


def _chosen(topics: TopicReport | None, assignments: Path) -> dict[str, Cluster | None]:
    """The conversations of kept clusters, with their cluster."""
    if topics is None:
        return {}
    clusters = {cluster.id: cluster for cluster in topics.clusters}
    kept = (a for a in read_models(assignments, Assignment) if a.kept)
    return {a.id: clusters[a.cluster] for a in kept}


def _cluster(
    stream: Iterator[Conversation],
    spec: BuildSpec,
    vocabulary: frozenset[str],
    assignments: Path,
    engine: BuildEngine,
) -> TopicReport | None:
    """Tier 1: topics of the first user messages (None when there is nothing to cluster)."""
    first = next(stream, None)
    if first is None:
        return None
    try:
        from checkbench.convbench.embed import make_embedder
        from checkbench.convbench.topics import cluster_topics
    except ImportError as exc:
        raise CheckbenchError(
            f"topic clustering needs {exc.name or 'the build extra'}: "
            "pip install 'checkbench[build]'"
        ) from None

    return cluster_topics(
        chain([first], stream),
        make_embedder(spec.embedder),
        vocabulary,
        spec.topics,
        assignments=assignments,
        workdir=assignments.parent,
        embed=engine.embed,
        form=FORMS.get(spec.domain or ""),
    )
