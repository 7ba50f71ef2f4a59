"""`checkbench build`: conversation logs in; a benchmark of Items and a build report out.

Two modes share the reading, the domain filter and the bookkeeping:

- ``conv-to-bench`` (Conv-to-Bench, docs/protocols.md section 2): topics (tier 1) -> zero-shot
  domain check (tier 2) -> instruction synthesis -> quality filter -> feedback identification ->
  checklist synthesis. Each item is the synthesized instruction as its single user message and
  a checklist whose checks cite their source ("instruction" or "feedback:<message index>").
- ``feedback`` (FB-Bench curation, docs/protocols.md section 1.7): apology selection -> (with a
  domain: topics and the domain check) -> a drafted feedback sample with a weighted checklist.

The logs are read twice, as a stream: first to select and cluster, then to fetch the
conversations that passed, so memory does not grow with the corpus (the candidates that reach
the model stages are held in memory). Nothing is written before the first pass has read every
log, so bad input in strict mode leaves no run behind. Every model call goes through the run
store (cached, resumable, counted per role); every decision is stored as a record of kind
``build:<stage>`` keyed by conversation id. A run directory holds one build: rerunning the same
build replays its calls from the store; other settings need another run directory.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from checkbench.convbench.candidate import Candidate
from checkbench.convbench.curate import Apology, select
from checkbench.convbench.domain import describe
from checkbench.convbench.feedback import label_counts
from checkbench.convbench.flow import Mode, model_stages
from checkbench.convbench.ingest import Conversation, Format
from checkbench.convbench.logs import LogTally, check_logs, stream_logs
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.convbench.stages import (
    RECORD_PREFIX,
    BuildStages,
    Decision,
    StageCount,
    StageTally,
)
from checkbench.convbench.summary import REPORT_FILE, BuildSummary, LogCount, build_usage
from checkbench.convbench.topic_report import Assignment, Cluster, TopicConfig, TopicReport
from checkbench.convbench.vocab import BUILTIN, load_vocabulary
from checkbench.errors import CheckbenchError, InputError
from checkbench.jsonl import read_models, write_jsonl
from checkbench.llm.base import ChatBackend
from checkbench.schema import Item
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.store import STORE_FILE, RunStore

OFF_TOPIC = "topic cluster not in domain"
SKIPPED_SHOWN = 20


class BuildSpec(BaseModel):
    """What to build from which logs; everything but `strict` must match to reuse a run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    logs: list[Path] = Field(min_length=1)
    mode: Mode = "conv-to-bench"
    domain: str | None = None
    domain_description: str | None = None
    vocab: Path | None = Field(None, description="vocabulary file; default: the domain's own")
    fmt: Format = "auto"
    strict: bool = False
    limit: int | None = Field(None, ge=1, description="conversations to read from each log")
    model: str = "local"
    embedder: str = "wordllama"
    topics: TopicConfig = Field(default_factory=TopicConfig)
    settings: ConvBenchSettings = Field(default_factory=ConvBenchSettings)


async def build_benchmark(
    spec: BuildSpec,
    run_dir: str | Path,
    bench: str | Path,
    backend: ChatBackend,
    *,
    progress: ProgressSink | None = None,
) -> BuildSummary:
    """Run the build described by `spec` with `backend` (opened for `spec.model`); write the
    benchmark to `bench` and the report and every stage record into `run_dir`. Rerunning the
    same build makes no new model calls."""
    logs = check_logs(spec.logs)
    vocabulary = _vocabulary(spec)
    config = _config(spec, logs, vocabulary, backend)
    _check_run_dir(Path(run_dir), config)
    tally = LogTally()
    selection: dict[str, Decision[Apology]] = {}
    stream = stream_logs(logs, spec.fmt, strict=spec.strict, limit=spec.limit, tally=tally)
    if spec.mode == "feedback":
        stream = _selected(stream, spec.settings, selection)
    with tempfile.TemporaryDirectory(prefix="checkbench-build-") as scratch:
        assignments = Path(scratch) / "assignments.jsonl"
        topics, chosen = _first_tier(stream, spec, vocabulary, assignments)
        again = stream_logs(logs, spec.fmt, strict=spec.strict, limit=spec.limit)
        candidates = [Candidate(c, chosen[c.id]) for c in again if c.id in chosen]
        with RunStore(run_dir) as store:
            store.set_meta("build_config", config)
            counts = _rule_stages(store, tally, selection, topics, assignments)
            model = StepModel(backend, Caller(store))
            build = BuildStages(store, model, spec.settings, progress or ProgressSink())
            domain = None
            if spec.domain is not None:
                domain = (spec.domain, describe(spec.domain, spec.domain_description))
            stages = model_stages(build, spec.mode, domain, candidates, selection)
            items = await stages
            if items:
                write_jsonl(bench, items)
            with store.transaction():
                for item in items:
                    store.put_record(RECORD_PREFIX + "item", item.id, item.model_dump())
            report = _report(spec, store, build, counts, tally, topics, items, bench, candidates)
    assert not report.broken_chain(), report.broken_chain()
    write_jsonl(Path(run_dir) / REPORT_FILE, [report])
    if not items:
        raise CheckbenchError(nothing_kept(report))
    return report


def nothing_kept(report: BuildSummary) -> str:
    """Why a build kept no item: the first stage that kept none, with its reasons."""
    emptied = next((stage for stage in report.stages if stage.kept == 0), None)
    if emptied is None:
        return "the build kept no items; no benchmark written"
    reasons = ", ".join(f"{reason} ({n})" for reason, n in emptied.reasons.items()) or "none read"
    return (
        f"the build kept no items: stage '{emptied.stage}' kept 0 of {emptied.seen} "
        f"({reasons}); no benchmark written, the stage records are in the run directory"
    )


def _first_tier(
    stream: Iterator[Conversation],
    spec: BuildSpec,
    vocabulary: frozenset[str] | None,
    assignments: Path,
) -> tuple[TopicReport | None, dict[str, Cluster | None]]:
    """The topic report (None without a domain or without conversations) and the chosen
    conversations with their clusters."""
    if vocabulary is None:
        return None, {conversation.id: None for conversation in stream}
    topics = _cluster(stream, spec, vocabulary, assignments)
    if topics is None:
        return None, {}
    clusters = {cluster.id: cluster for cluster in topics.clusters}
    return topics, {a.id: clusters[a.cluster] for a in _assignments(assignments) if a.kept}


def _vocabulary(spec: BuildSpec) -> frozenset[str] | None:
    """The domain vocabulary for the topic filter, or None when the build has no domain."""
    if spec.domain is None:
        if spec.mode == "conv-to-bench":
            raise InputError("a Conv-to-Bench build needs a domain (--domain)", field="domain")
        if spec.vocab is not None:
            raise InputError("a vocabulary needs a domain (--domain)", field="vocab")
        return None
    if spec.vocab is not None:
        return load_vocabulary(spec.vocab)
    if spec.domain not in BUILTIN:
        raise InputError(
            f"no built-in vocabulary for domain {spec.domain!r} (built-in: "
            f"{', '.join(BUILTIN)}): give one with --vocab",
            field="domain",
        )
    return load_vocabulary(spec.domain)


def _config(
    spec: BuildSpec, logs: list[Path], vocabulary: frozenset[str] | None, backend: ChatBackend
) -> dict[str, Any]:
    """The identity of a build, as stored in its run directory."""
    words = "\n".join(sorted(vocabulary)) if vocabulary is not None else None
    config = {
        **spec.model_dump(mode="json", exclude={"strict", "logs", "vocab", "model"}),
        "logs": [str(path.resolve()) for path in logs],
        "vocabulary": hashlib.sha256(words.encode()).hexdigest()[:16] if words else None,
        "model": backend.name,
    }
    return json.loads(json.dumps(config))


def _check_run_dir(run_dir: Path, config: dict[str, Any]) -> None:
    """Refuse a run directory that holds a different build (its records would mix)."""
    if not (run_dir / STORE_FILE).is_file():
        return
    with RunStore(run_dir) as store:
        stored = store.get_meta("build_config")
    if stored is not None and stored != config:
        changed = sorted(k for k in config.keys() | stored.keys() if config.get(k) != stored.get(k))
        raise InputError(
            f"holds a build with other settings ({', '.join(changed)} differ): "
            "choose another --out",
            path=run_dir,
        )


def _selected(
    stream: Iterable[Conversation],
    settings: ConvBenchSettings,
    decisions: dict[str, Decision[Apology]],
) -> Iterator[Conversation]:
    """Conversations that pass apology selection; every decision is kept for the records."""
    for conversation in stream:
        decision = select(conversation, settings)
        decisions[conversation.id] = decision
        if decision.kept:
            yield conversation


def _cluster(
    stream: Iterator[Conversation],
    spec: BuildSpec,
    vocabulary: frozenset[str],
    assignments: Path,
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
    )


def _assignments(path: Path) -> list[Assignment]:
    return read_models(path, Assignment)


def _rule_stages(
    store: RunStore,
    tally: LogTally,
    selection: dict[str, Decision[Apology]],
    topics: TopicReport | None,
    assignments: Path,
) -> list[StageCount]:
    """Record and count the stages decided without a model: reading, selection, topics."""
    ingest = StageTally("read")
    ingest.seen, ingest.kept = tally.total_read, tally.total_kept
    ingest.reasons.update(tally.reasons())
    counts = [ingest.count()]
    with store.transaction():
        for rejection in tally.rejections:
            store.put_record(
                RECORD_PREFIX + "read",
                rejection.where,
                {"kept": False, "reason": rejection.reason, "error": rejection.error},
            )
        if selection:
            apology = StageTally("apology")
            for key, decision in selection.items():
                apology.add(decision)
                record = {"kept": decision.kept, "reason": decision.reason, **decision.record}
                store.put_record(RECORD_PREFIX + "apology", key, record)
            counts.append(apology.count())
        if topics is not None:
            store.set_meta("build_topics", topics.model_dump(mode="json"))
            clustering = StageTally("topics")
            for assignment in _assignments(assignments):
                decision = Decision(assignment.cluster, None if assignment.kept else OFF_TOPIC, {})
                clustering.add(decision)
                record = {"kept": assignment.kept, "cluster": assignment.cluster}
                store.put_record(RECORD_PREFIX + "topics", assignment.id, record)
            counts.append(clustering.count())
    return counts


def _report(
    spec: BuildSpec,
    store: RunStore,
    build: BuildStages,
    counts: list[StageCount],
    tally: LogTally,
    topics: TopicReport | None,
    items: list[Item],
    bench: str | Path,
    candidates: list[Candidate],
) -> BuildSummary:
    labels = None
    if spec.mode == "conv-to-bench":
        records = store.records(RECORD_PREFIX + "feedback")
        labels = label_counts([records[c.key] for c in candidates if c.key in records])
    report = BuildSummary(
        mode=spec.mode,
        domain=spec.domain,
        model=build.model.name,
        bench=str(bench),
        items=len(items),
        logs=[
            LogCount(path=path, read=tally.read[path], kept=tally.kept[path])
            for path in map(str, spec.logs)
        ],
        limit_reached=tally.limit_reached,
        stages=[*counts, *build.counts],
        skipped_records=[r.error for r in tally.rejections[:SKIPPED_SHOWN]],
        feedback_labels=labels,
        topics=topics,
        usage=build_usage(store),
        prompts=sorted(build.prompts),
    )
    store.set_meta("build_report", report.model_dump(mode="json"))
    return report
