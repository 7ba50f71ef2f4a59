"""What every model-driven build stage shares: asking the build's model for typed answers,
counting what was kept and dropped and why, and recording each decision.

A stage looks at candidates one at a time and returns a `Decision`: keep (with what it learnt)
or drop (with a countable reason). Model answers that stay unusable after the re-asks, and
failed calls, drop the candidate with a reason of their own, so they are counted, never taken
as a yes or a no. Each decision is stored as a record of its stage's kind (`DECISIONS`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, with_config
from typing_extensions import TypedDict

from checkbench.convbench.candidate import Candidate
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.schema import Item
from checkbench.steps.answers import Answer
from checkbench.steps.model import StepModel, Structured
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import prompt_request, prompt_tag
from checkbench.steps.stage import (
    Dispatch,
    StageClock,
    StageRun,
    dispatch_here,
    every_call_failed,
)
from checkbench.store import RecordKind, RunStore

T = TypeVar("T")
A = TypeVar("A", bound=Answer)

RECORD_PREFIX = "build:"
"""What a build's record kinds and model-call roles are named with: `build:<stage>`."""
CALL_FAILED = "model call failed"
UNUSABLE = "unusable model answer"


@with_config(ConfigDict(extra="allow"))
class DecisionRecord(TypedDict):
    """A stage's decision on one candidate as the run keeps it: kept or not, the reason it was
    dropped, and what the stage learnt (the `Decision`'s record) beside them."""

    kept: bool
    reason: str | None


STAGES = (
    "read",
    "concession",
    "topics",
    "domain",
    "instruction",
    "quality",
    "feedback",
    "checklist",
    "draft",
)
"""Every stage of a build, in the order they run (the first three without a model)."""
DECISIONS = {stage: RecordKind(RECORD_PREFIX + stage, DecisionRecord) for stage in STAGES}
"""The record kind of each stage's decisions, by stage, keyed by candidate."""
ITEM_RECORD = RecordKind(RECORD_PREFIX + "item", Item)
"""The items a build made, by item id."""


class StageCount(BaseModel):
    """One stage of a build: candidates seen, kept and dropped (by reason), model calls made
    and how many of them failed after every retry (this invocation's)."""

    stage: str
    seen: int
    kept: int
    dropped: int
    reasons: dict[str, int]
    calls: int = 0
    cached: int = 0
    failed: int = 0
    junk: dict[str, int] = {}
    """Junk the model wrote and the stage dropped from what it kept, by reason
    (`checkbench.convbench.junk`): placeholder or echoed checks."""

    @property
    def all_failed(self) -> bool:
        """Every model call this stage made failed: the build exits 1, by the rule of every
        command that calls models."""
        return every_call_failed(self.calls, self.failed)


@dataclass
class StageTally:
    """Live counts of one stage; `count()` freezes them for the report."""

    stage: str
    seen: int = 0
    kept: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    junk: Counter[str] = field(default_factory=Counter)

    def add(self, decision: Decision[Any]) -> None:
        self.seen += 1
        self.junk.update(entry["reason"] for entry in decision.record.get("junk", []))
        if decision.kept:
            self.kept += 1
        else:
            self.reasons[decision.reason or "dropped"] += 1

    def count(self, clock: StageClock | None = None) -> StageCount:
        calls = cached = failed = 0
        if clock is not None:
            summary = clock.summary(self.stage, total=self.seen, already_done=0, errors=0)
            calls, cached, failed = summary.called, summary.cached, summary.failed_calls
        return StageCount(
            stage=self.stage,
            seen=self.seen,
            kept=self.kept,
            dropped=sum(self.reasons.values()),
            reasons=dict(sorted(self.reasons.items())),
            calls=calls,
            cached=cached,
            failed=failed,
            junk=dict(sorted(self.junk.items())),
        )


@dataclass(frozen=True)
class Decision(Generic[T]):
    """A stage's verdict on one candidate: kept with a value, or dropped with a reason.

    `record` is what gets stored for the audit trail (model answers, problems, attempts).
    """

    value: T | None
    reason: str | None
    record: dict[str, Any]

    @property
    def kept(self) -> bool:
        return self.reason is None

    @classmethod
    def keep(cls, value: T, **record: Any) -> Decision[T]:
        return cls(value, None, record)

    @classmethod
    def drop(cls, reason: str, **record: Any) -> Decision[T]:
        return cls(None, reason, record)


def failure(answer: Structured[Any]) -> Decision[Any]:
    """The decision for an answer that never became usable: counted by kind, kept for audit."""
    problem = answer.problem or "no answer"
    reason = CALL_FAILED if problem.startswith(CALL_FAILED) else UNUSABLE
    return Decision.drop(reason, problem=problem, raw=answer.raw, attempts=answer.attempts)


@dataclass
class BuildStages:
    """The run store, the build's model, the settings and the progress display, with what the
    stages so far counted and which prompts they used; `dispatch` works off the decisions (here,
    or on Ray workers)."""

    store: RunStore
    model: StepModel
    settings: ConvBenchSettings
    progress: ProgressSink
    counts: list[StageCount] = field(default_factory=list)
    prompts: set[str] = field(default_factory=set)
    dispatch: Dispatch = dispatch_here

    async def ask(
        self, prompt: str, values: Mapping[str, str], answer: type[A], *, max_tokens: int
    ) -> Structured[A]:
        """Ask the model one templated question (temperature 0, so reruns hit the cache); the
        role is `build:<prompt name without its build_ prefix>`."""
        self.prompts.add(prompt_tag(prompt))
        return await self.model.ask(
            prompt_request(prompt, values, max_tokens=max_tokens),
            answer,
            role=RECORD_PREFIX + prompt.removeprefix("build_"),
            reasks=self.settings.reasks,
        )

    async def decide(
        self, stage: str, candidates: Sequence[Candidate], step: Step
    ) -> list[tuple[Candidate, Any]]:
        """Run `step` on every candidate as one StageRun, record each decision under the
        candidate's key, count the stage, and return the kept candidates with their values,
        in order."""
        run = StageRun.begin(self.store, self.model.caller, self.progress)
        decisions: dict[int, Decision[Any]] = {}

        def done(result: tuple[int, Decision[Any], set[str]]) -> None:
            index, decision, prompts = result
            decisions[index] = decision
            self.store.put_record(
                DECISIONS[stage],
                candidates[index].key,
                {"kept": decision.kept, "reason": decision.reason, **decision.record},
            )
            self.prompts.update(prompts)

        run.progress.start(stage, len(candidates))
        model = self.model
        work = Deciding(model.name, self.settings, step)
        jobs = list(enumerate(candidates))
        await self.dispatch(run, work, {model.name: model}, jobs, model.max_concurrency, done)
        tally = StageTally(stage)
        kept = []
        for index, candidate in enumerate(candidates):
            tally.add(decisions[index])
            if decisions[index].kept:
                kept.append((candidate, decisions[index].value))
        self.counts.append(tally.count(run.clock))
        return kept


Step = Callable[[BuildStages, Candidate], Awaitable[Decision[Any]]]
"""A model-driven stage: its decision on one candidate."""


@dataclass(frozen=True)
class Deciding:
    """A model stage's work on one job (index, candidate), wherever it runs: the index, the
    decision and the prompts used."""

    model: str
    settings: ConvBenchSettings
    step: Step

    async def run(
        self, models: Mapping[str, StepModel], job: tuple[int, Candidate]
    ) -> tuple[int, Decision[Any], set[str]]:
        index, candidate = job
        model = models[self.model]
        build = BuildStages(model.caller.store, model, self.settings, ProgressSink())
        return index, await self.step(build, candidate), build.prompts
