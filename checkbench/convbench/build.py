"""`checkbench convbench build`: conversation logs in; a benchmark of Items and a build report out.

Two modes share the reading, the domain filter and the bookkeeping:

- ``conv-to-bench`` (Conv-to-Bench, docs/protocols.md section 2): topics (tier 1) -> zero-shot
  domain check (tier 2) -> instruction synthesis -> quality filter -> feedback identification ->
  checklist synthesis. Each item is the synthesized instruction as its single user message and
  a checklist whose checks cite their source ("instruction" or "feedback:<message index>").
- ``feedback`` (FB-Bench curation, docs/protocols.md section 1.7): concession selection -> (with
  a domain: topics and the domain check) -> a drafted feedback sample with a weighted checklist.

`model_stages` runs each mode's model-driven stages in order and makes the items;
`preview_build` runs only the cheap stages (`first_pass`: reading, selection, topics) and
writes nothing: the clusters, their keywords and openers, to check a domain vocabulary before
paying for model calls (`checkbench convbench build --stop-after topics`).

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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkbench.choices import Curation as Mode
from checkbench.convbench.candidate import Candidate, language, provenance
from checkbench.convbench.checklist import synthesize_checklist
from checkbench.convbench.curate import Concession, draft, feedback_item
from checkbench.convbench.decisions import DECISIONS, ITEM_RECORD, BuildStages, Decision, StageCount
from checkbench.convbench.domain import check_domain, describe
from checkbench.convbench.feedback import identify, label_counts
from checkbench.convbench.first_pass import FirstPass, first_pass
from checkbench.convbench.instruction import screen, synthesize
from checkbench.convbench.logs import LogTally, check_logs, stream_logs
from checkbench.convbench.markers import Markers, load_markers
from checkbench.convbench.spec import LOCAL_ENGINE, BuildEngine, BuildSpec
from checkbench.convbench.summary import (
    REPORT_FILE,
    BuildSummary,
    LogCount,
    TopicPreview,
    build_usage,
)
from checkbench.convbench.vocab import BUILTIN, load_vocabulary
from checkbench.errors import CheckbenchError, InputError
from checkbench.jsonl import write_jsonl
from checkbench.llm.base import ChatBackend
from checkbench.schema import Check, Item, Message
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import RunTally
from checkbench.store import STORE_FILE, RunStore

SKIPPED_SHOWN = 20


@dataclass(frozen=True)
class BuildResult:
    """What a build did: its report and what the store says of the calls it made (`tally`)."""

    report: BuildSummary
    tally: RunTally


async def build_benchmark(
    spec: BuildSpec,
    run_dir: str | Path,
    bench: str | Path,
    backend: ChatBackend,
    *,
    progress: ProgressSink | None = None,
    engine: BuildEngine = LOCAL_ENGINE,
) -> BuildResult:
    """Run the build described by `spec` with `backend` (opened for `spec.model`); write the
    benchmark to `bench` and the report and every stage record into `run_dir` (only this
    process writes: `engine` says where records are parsed, messages embedded and decisions
    made). Rerunning the same build makes no new model calls but those that failed.

    A build that keeps no item raises CheckbenchError (its input yields nothing), unless some
    model stage failed every call it made (a dead endpoint, a bad key): then the report comes
    back with no item and no benchmark written, and a rerun retries those calls."""
    logs = check_logs(spec.logs)
    vocabulary = _vocabulary(spec)
    markers = _markers(spec)
    config = _config(spec, logs, vocabulary, markers, backend)
    _check_run_dir(Path(run_dir), config)
    with first_pass(spec, logs, vocabulary, markers, engine) as cheap:
        if cheap.tally.rejections and not cheap.tally.total_kept:  # before any run directory
            skipped = len(cheap.tally.rejections)
            raise CheckbenchError(
                f"{cheap.tally.rejections[0].error}; no record of the logs is usable "
                f"({skipped} skipped), nothing written"
            )
        again = stream_logs(
            logs, spec.fmt, strict=spec.strict, limit=spec.limit, parse=engine.parse
        )
        candidates = [Candidate(c, cheap.chosen[c.id]) for c in again if c.id in cheap.chosen]
        with RunStore(run_dir) as store:
            after = store.last_call()
            store.set_meta("build_config", config)
            _record(store, cheap)
            model = StepModel(backend, Caller(store))
            build = BuildStages(
                store, model, spec.settings, progress or ProgressSink(), dispatch=engine.dispatch
            )
            domain = None
            if spec.domain is not None:
                domain = (spec.domain, describe(spec.domain, spec.domain_description))
            items = await model_stages(build, spec.mode, domain, candidates, cheap.selection)
            if items:
                write_jsonl(bench, items)
            with store.transaction():
                for item in items:
                    store.put_record(ITEM_RECORD, item.id, item)
            report = _report(spec, store, build, cheap, items, bench, candidates)
            tally = RunTally.since(store, after)
    assert not report.broken_chain(), report.broken_chain()
    write_jsonl(Path(run_dir) / REPORT_FILE, [report])
    if not items and not any(stage.all_failed for stage in report.stages):
        raise CheckbenchError(nothing_kept(report.stages))
    return BuildResult(report, tally)


def preview_build(spec: BuildSpec) -> TopicPreview:
    """The cheap stages of `spec` and the topic clusters, writing nothing. Without a domain
    the clusters are shown against an empty vocabulary (none kept)."""
    logs = check_logs(spec.logs)
    chosen = spec.domain is not None or spec.vocab is not None
    vocabulary = _vocabulary(spec) if chosen else frozenset[str]()
    with first_pass(spec, logs, vocabulary, _markers(spec)) as cheap:
        return TopicPreview(
            mode=spec.mode,
            domain=spec.domain,
            logs=_log_counts(spec.logs, cheap.tally),
            limit_reached=cheap.tally.limit_reached,
            stages=cheap.counts(),
            skipped_records=[r.error for r in cheap.tally.rejections[:SKIPPED_SHOWN]],
            topics=cheap.topics,
        )


def nothing_kept(stages: Iterable[StageCount]) -> str:
    """Why a build kept no item: each stage up to the first that kept none, with its reasons."""
    shown, hint = [], ""
    for stage in stages:
        reasons = ", ".join(f"{reason} ({n})" for reason, n in stage.reasons.items())
        shown.append(f"{stage.stage} kept {stage.kept} of {stage.seen}")
        if reasons:
            shown[-1] += f": {reasons}"
        if stage.kept == 0:
            if stage.stage == "topics":
                hint = " (--stop-after topics shows the clusters and their keywords)"
            break
    return (
        f"the build kept no items: {'; '.join(shown) or 'nothing read'}{hint}; "
        "no benchmark written, the stage records are in the run directory"
    )


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


def _markers(spec: BuildSpec) -> Markers:
    if spec.markers is not None and spec.mode != "feedback":
        raise InputError("concession markers are for --curate feedback", field="markers")
    return load_markers(spec.markers)


def _digest(lines: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _config(
    spec: BuildSpec,
    logs: list[Path],
    vocabulary: frozenset[str] | None,
    markers: Markers,
    backend: ChatBackend,
) -> dict[str, Any]:
    """The identity of a build, as stored in its run directory."""
    config = {
        **spec.model_dump(mode="json", exclude={"strict", "logs", "vocab", "markers", "model"}),
        "logs": [str(path.resolve()) for path in logs],
        "vocabulary": _digest(sorted(vocabulary)) if vocabulary else None,
        "markers": _digest([*markers.concede, "", *markers.hold]) if spec.markers else None,
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


def _record(store: RunStore, cheap: FirstPass) -> None:
    """Store every decision of the cheap stages, and the topic report."""
    with store.transaction():
        for stage, key, record in cheap.records():
            store.put_record(DECISIONS[stage], key, record)
        if cheap.topics is not None:
            store.set_meta("build_topics", cheap.topics.model_dump(mode="json"))


def _log_counts(paths: list[Path], tally: LogTally) -> list[LogCount]:
    return [
        LogCount(path=path, read=tally.read[path], kept=tally.kept[path])
        for path in map(str, paths)
    ]


def _report(
    spec: BuildSpec,
    store: RunStore,
    build: BuildStages,
    cheap: FirstPass,
    items: list[Item],
    bench: str | Path,
    candidates: list[Candidate],
) -> BuildSummary:
    labels = None
    if spec.mode == "conv-to-bench":
        records = store.records(DECISIONS["feedback"])
        labels = label_counts([records[c.key] for c in candidates if c.key in records])
    report = BuildSummary(
        mode=spec.mode,
        domain=spec.domain,
        model=build.model.name,
        bench=str(bench),
        items=len(items),
        logs=_log_counts(spec.logs, cheap.tally),
        limit_reached=cheap.tally.limit_reached,
        stages=[*cheap.counts(), *build.counts],
        skipped_records=[r.error for r in cheap.tally.rejections[:SKIPPED_SHOWN]],
        feedback_labels=labels,
        topics=cheap.topics,
        usage=build_usage(store),
        prompts=sorted(build.prompts),
    )
    store.set_meta("build_report", report.model_dump(mode="json"))
    return report


async def model_stages(
    build: BuildStages,
    mode: Mode,
    domain: tuple[str, str] | None,
    candidates: list[Candidate],
    selection: dict[str, Decision[Concession]],
) -> list[Item]:
    """The stages of `mode` over the candidates; `domain` is the domain's name and how the
    model reads it. Closes the model when done."""
    try:
        name = None
        if domain is not None:
            name, described = domain
            kept = await build.decide(
                "domain", candidates, lambda b, c: check_domain(b, c, described)
            )
            candidates = _kept(kept)
        if mode == "feedback":
            return await _feedback_items(build, name, candidates, selection)
        return await _conv_items(build, name, candidates)
    finally:
        await build.model.backend.aclose()


def _kept(decided: list[tuple[Candidate, Any]]) -> list[Candidate]:
    return [candidate for candidate, _ in decided]


async def _conv_items(
    build: BuildStages, domain: str | None, candidates: list[Candidate]
) -> list[Item]:
    """Conv-to-Bench: instruction, quality, feedback and checklist stages, then the items."""
    synthesized = await build.decide("instruction", candidates, synthesize)
    for candidate, text in synthesized:
        candidate.instruction = text
    screened = await build.decide("quality", _kept(synthesized), screen)
    identified = await build.decide("feedback", _kept(screened), identify)
    for candidate, feedback in identified:
        candidate.feedback = feedback
    checklists = await build.decide("checklist", _kept(identified), synthesize_checklist)
    return [_conv_item(candidate, checks, domain) for candidate, checks in checklists]


async def _feedback_items(
    build: BuildStages,
    domain: str | None,
    candidates: list[Candidate],
    selection: dict[str, Decision[Concession]],
) -> list[Item]:
    """FB-Bench curation: one drafted sample per selected conversation."""

    def concession(candidate: Candidate) -> Concession:
        value = selection[candidate.key].value
        assert value is not None
        return value

    drafts = await build.decide("draft", candidates, lambda b, c: draft(b, c, concession(c)))
    return [
        feedback_item(candidate, concession(candidate), sample, _tags(candidate, domain))
        for candidate, sample in drafts
    ]


def _tags(candidate: Candidate, domain: str | None) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    if domain is not None:
        tags["domain"] = [domain]
    if candidate.cluster is not None:
        tags["cluster"] = [str(candidate.cluster.id)]
        tags["cluster_keywords"] = list(candidate.cluster.keywords)
    return tags


def _conv_item(candidate: Candidate, checks: list[Check], domain: str | None) -> Item:
    assert candidate.instruction is not None
    return Item(
        id=candidate.key,
        messages=[Message(role="user", content=candidate.instruction)],
        checklist=checks,
        rule="mean",
        tags=_tags(candidate, domain),
        meta={
            "language": language(candidate.instruction),
            "provenance": provenance(candidate.conversation),
            "feedback": {str(i): p for i, p in sorted(candidate.feedback.items())},
        },
    )
