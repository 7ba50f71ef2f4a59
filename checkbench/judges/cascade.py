"""A cascade of judges: a cheap judge grades every check by P(yes) (log-prob mode, calibrated
when given a calibration), and the checks it is unsure of, P(yes) within a band, go to a strong
judge, which grades only those checks of a reply in one text-mode call.

The cascade's verdicts are stored under their own judge id, `cascade:CHEAP>STRONG@LO-HI`, each
saying which judge decided it (`Verdict.decided_by`). The band is given, or fitted on the
labelled part of the run (the checks a reference judge graded) as the narrowest band around 0.5
whose cascade would reach a target agreement with the reference, reckoning the strong judge
right on every check it takes. A budget of strong calls keeps the most uncertain checks of at
most that many replies. Like every stage, it resumes: the cheap judge's verdicts and the strong
judge's decisions (in any cascade of this run with the same strong judge) are kept, and the
strong judge is asked only about checks it has not decided yet.

A slice (`steps.slices.Slice`: --limit, --sample, --items, --tag, --model) cascades on a part
of the run, recorded as the cascade's scope as plain judging records it (the same slice or a
wider one resumes; a narrower one is refused); a cheap judge that graded more of the run (the
whole of it) serves the cascade as it is, else its scope is claimed the same way. Under a cost
limit (`steps.budget`) both judges' calls count against it, and the cascade stops before a call
that could pass it; a rerun with a higher limit resumes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from checkbench.choices import JudgeMode
from checkbench.errors import InputError
from checkbench.judges.calibration import load_calibration, store_calibrated_verdicts
from checkbench.judges.cascade_summary import (
    CASCADE_RECORD,
    CascadeFacts,
    CascadeSummary,
    cascade_summary,
)
from checkbench.judges.checklist import JudgeSettings, judge_name, judge_response
from checkbench.judges.stage import judge_responses
from checkbench.llm.base import ChatBackend
from checkbench.schema import Item, Response, Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.steps.progress import ProgressSink
from checkbench.steps.slices import Slice, claim_judge, judged_scope, slice_scope
from checkbench.steps.stage import StageRun, StageWork, dispatch_here
from checkbench.store import RunStore
from checkbench.store.scope import Scope

__all__ = [
    "CASCADE_RECORD",
    "DEFAULT_BAND",
    "CascadeSettings",
    "CascadeSummary",
    "cascade_name",
    "cascade_responses",
    "check_inputs",
    "escalated",
    "fit_band",
    "parse_band",
]

DEFAULT_BAND = (0.2, 0.8)
Band = tuple[float, float]
CheckKey = tuple[str, str, int, str]
"""(item, model, sample, check): one check of one reply."""
ReplyKey = tuple[str, str, int]


@dataclass(frozen=True)
class CascadeSettings:
    """How the cascade runs: checks whose (calibrated) P(yes) lies in `band` (inclusive) go to
    the strong judge, or in the band fitted to reach `target_agreement` with the `reference`
    judge on its labelled checks; `budget_calls` caps the replies sent to the strong judge
    (most uncertain checks first). `calibration` (a name in the run or a JSON file) calibrates
    the cheap judge's P(yes); `reference` also gives the summary its agreement figures;
    `language` is the judge prompts'; `b`, `seed`, `level` the intervals'."""

    band: Band = DEFAULT_BAND
    target_agreement: float | None = None
    reference: str | None = None
    budget_calls: int | None = None
    calibration: str | None = None
    language: str = "auto"
    b: int = DEFAULT_B
    seed: int = DEFAULT_SEED
    level: float = 0.95

    def check(self) -> None:
        """Refuse settings that cannot run, before anything is called or written."""
        low, high = self.band
        if not 0.0 <= low <= high <= 1.0:
            raise InputError(
                f"the band must be LO,HI with 0 <= LO <= HI <= 1, got {low:g},{high:g}",
                field="band",
            )
        if self.target_agreement is not None:
            if not 0.0 < self.target_agreement <= 1.0:
                raise InputError(
                    f"the target agreement must be in (0, 1], got {self.target_agreement:g}",
                    field="target_agreement",
                )
            if self.reference is None:
                raise InputError(
                    "a target agreement is fitted on the labelled part of the run: name the "
                    "judge whose verdicts label it (--reference-judge)",
                    field="target_agreement",
                )
        if self.budget_calls is not None and self.budget_calls < 0:
            raise InputError(
                f"the budget of strong-judge calls must be 0 or more, got {self.budget_calls}",
                field="budget_calls",
            )


def parse_band(text: str) -> Band:
    """`LO,HI` (e.g. `0.2,0.8`) as two numbers; checked by CascadeSettings.check."""
    parts = text.split(",")
    try:
        low, high = (float(part) for part in parts)
    except ValueError:
        raise InputError(
            f"the band must be LO,HI, e.g. 0.2,0.8, not {text!r}", field="band"
        ) from None
    return low, high


def cascade_name(cheap: str, strong: str, band: Band, budget: int | None = None) -> str:
    """The cascade's judge id: `cascade:CHEAP>STRONG@LO-HI`, with `,budget=N` under a budget."""
    name = f"cascade:{cheap}>{strong}@{band[0]:.3g}-{band[1]:.3g}"
    return name if budget is None else f"{name},budget={budget}"


def _key(v: Verdict) -> CheckKey:
    return v.item_id, v.model, v.sample, v.check_id


def _reply(v: Verdict) -> ReplyKey:
    return v.item_id, v.model, v.sample


def _doubt(p: float | None) -> float:
    """How far P(yes) is from a coin toss; an unscored check (None) is the most uncertain."""
    return -1.0 if p is None else abs(p - 0.5)


def escalated(graded: Iterable[Verdict], band: Band, budget: int | None = None) -> set[CheckKey]:
    """The checks the strong judge takes: P(yes) within the band, or unscored by the cheap
    judge; under a budget, the most uncertain first, from at most `budget` replies."""
    low, high = band
    inside = sorted(
        (v for v in graded if v.p_yes is None or low <= v.p_yes <= high),
        key=lambda v: (_doubt(v.p_yes), _key(v)),
    )
    if budget is None:
        return {_key(v) for v in inside}
    chosen: set[CheckKey] = set()
    replies: set[ReplyKey] = set()
    for v in inside:
        if _reply(v) in replies or len(replies) < budget:
            replies.add(_reply(v))
            chosen.add(_key(v))
    return chosen


def fit_band(graded: Sequence[Verdict], gold: Sequence[Verdict], target: float) -> tuple[Band, int]:
    """The narrowest band around 0.5 whose cascade agrees with the reference on at least
    `target` of the labelled checks, reckoning the strong judge right on the checks it takes
    (an optimistic reckoning unless the strong judge is the reference); and the number of
    labelled checks it was fitted on."""
    labels = {_key(v): v.passed for v in gold if v.passed is not None}
    labelled = sorted(
        (v for v in graded if _key(v) in labels), key=lambda v: (_doubt(v.p_yes), _key(v))
    )
    if not labelled:
        raise InputError(
            "no labelled part to fit the band on: the reference judge graded none of the "
            "checks the cheap judge graded",
            field="target_agreement",
        )
    wrong = [v.passed != labels[_key(v)] for v in labelled]
    remaining_wrong = sum(wrong)
    half_width = -1.0  # no escalation but the unscored checks
    for v, was_wrong in zip(labelled, wrong, strict=True):
        if 1 - remaining_wrong / len(labelled) >= target:
            break
        remaining_wrong -= was_wrong
        half_width = _doubt(v.p_yes)
    if half_width < 0:
        return (0.5, 0.5), len(labelled)
    return (max(0.0, 0.5 - half_width), min(1.0, 0.5 + half_width)), len(labelled)


def _graded(store: RunStore, cheap: str, calibration: str | None) -> tuple[str, list[Verdict]]:
    """The cheap judge's id as the cascade names it and its verdicts: its own, or its
    calibrated ones (stored under the calibration's name)."""
    if calibration is None:
        return cheap, store.verdicts(cheap)
    artefact = load_calibration(store, calibration)
    return artefact.name, store_calibrated_verdicts(store, calibration)


def _strong_decisions(store: RunStore, strong: str) -> dict[CheckKey, Verdict]:
    """The checks the strong judge has decided in any cascade of this run."""
    decided: dict[CheckKey, Verdict] = {}
    for judge in store.judges():
        if judge.startswith("cascade:") and f">{strong}@" in judge:
            for v in store.verdicts(judge):
                if v.decided_by == strong and v.passed is not None:
                    decided.setdefault(_key(v), v)
    return decided


@dataclass(frozen=True)
class _Escalation:
    """One reply's checks for the strong judge."""

    item: Item
    response: Response
    checks: frozenset[str]


def check_inputs(
    store: RunStore,
    cheap: str,
    settings: CascadeSettings,
    strong: str | None = None,
    slice_: Slice | None = None,
) -> None:
    """Refuse a calibration of another judge, a reference without verdicts, and a slice
    narrower than the one the cheap judge (or, with a given band, the cascade named by the
    strong judge id `strong`) judged before, before the cascade calls or writes anything."""
    settings.check()
    decider = cheap
    if settings.calibration is not None:
        artefact = load_calibration(store, settings.calibration)
        if artefact.judge != cheap:
            raise InputError(
                f"calibration {artefact.name!r} is for judge {artefact.judge!r}, not the cheap "
                f"judge {cheap!r}",
                field="calibration",
            )
        decider = artefact.name
    reference = settings.reference
    if reference is not None and not any(v.passed is not None for v in store.verdicts(reference)):
        found = ", ".join(store.judges()) or "none"
        raise InputError(
            f"no labelled part: no verdicts by reference judge {reference!r} (judges: {found})",
            field="reference_judge",
        )
    slice_ = slice_ or Slice()
    scope = _claim_cheap(store, cheap, slice_, write=False)
    if settings.target_agreement is not None and settings.reference is not None:
        labelled = [
            v
            for v in store.verdicts(settings.reference)
            if v.passed is not None and scope.holds(v.item_id, v.model)
        ]
        if not labelled:
            raise InputError(
                f"no labelled part to fit the band on: reference judge {settings.reference!r} "
                f"graded no check in this slice ({scope.spec})",
                field="target_agreement",
            )
    if strong is not None and settings.target_agreement is None:
        name = cascade_name(decider, strong, settings.band, settings.budget_calls)
        claim_judge(store, name, slice_, write=False)


def _claim_cheap(store: RunStore, cheap: str, slice_: Slice, *, write: bool) -> Scope:
    """The slice's scope, claimed for the cheap judge unless it covers it already (a cheap
    judge that graded the whole run serves a cascade on any slice of it)."""
    scope = slice_scope(store, slice_)
    prior = judged_scope(store, cheap)
    if prior is None or not prior.covers(scope):
        claim_judge(store, cheap, slice_, write=write)
    return scope


@dataclass(frozen=True)
class _Only:
    """Judging's dispatch here, of the jobs (item, response, tried) inside the scope only."""

    scope: Scope

    async def __call__(
        self,
        stage: StageRun,
        work: StageWork[Any, Any],
        models: Mapping[str, StepModel],
        jobs: Iterable[Any],
        workers: int,
        done: Callable[[Any], None],
    ) -> None:
        kept = (job for job in jobs if self.scope.holds(job[1].item_id, job[1].model))
        await dispatch_here(stage, work, models, kept, workers, done)


async def cascade_responses(
    store: RunStore,
    cheap: ChatBackend,
    strong: ChatBackend,
    *,
    settings: CascadeSettings,
    slice_: Slice | None = None,
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> CascadeSummary:
    """Run the cascade on every reply of the run (of the slice; see the module's docstring);
    its summary is kept in the run (kind CASCADE_RECORD, keyed by the cascade's judge id) and
    returned."""
    caller = caller or Caller(store)
    slice_ = slice_ or Slice()
    mode: JudgeMode = "logprob"
    cheap_settings = JudgeSettings(mode=mode, language=settings.language)
    strong_settings = JudgeSettings(language=settings.language)
    cheap_id = judge_name(cheap, cheap_settings)
    scope = _claim_cheap(store, cheap_id, slice_, write=True)
    await judge_responses(
        store,
        cheap,
        settings=cheap_settings,
        caller=caller,
        progress=progress,
        dispatch=_Only(scope),
    )
    decider, graded = _graded(store, cheap_id, settings.calibration)
    graded = [v for v in graded if scope.holds(v.item_id, v.model)]
    strong_id = judge_name(strong, strong_settings)
    gold = store.verdicts(settings.reference) if settings.reference is not None else []
    band, fitted_on = settings.band, None
    if settings.target_agreement is not None:
        band, fitted_on = fit_band(graded, gold, settings.target_agreement)
    name = cascade_name(decider, strong_id, band, settings.budget_calls)
    claim_judge(store, name, slice_)
    responses = {
        (r.item_id, r.model, r.sample): r
        for r in store.responses()
        if scope.holds(r.item_id, r.model)
    }
    failed = {key for key, r in responses.items() if r.error is not None or r.content is None}
    chosen = {k for k in escalated(graded, band, settings.budget_calls) if k[:3] not in failed}
    store.put_verdicts(
        v.model_copy(update={"judge": name, "decided_by": decider})
        for v in graded
        if _key(v) not in chosen
    )
    known = _strong_decisions(store, strong_id)
    reused = [known[k].model_copy(update={"judge": name}) for k in sorted(chosen & known.keys())]
    store.put_verdicts(reused)
    items = {item.id: item for item in store.items()}
    asks: dict[ReplyKey, set[str]] = {}
    for k in sorted(chosen - known.keys()):
        asks.setdefault(k[:3], set()).add(k[3])
    jobs = [_Escalation(items[key[0]], responses[key], frozenset(c)) for key, c in asks.items()]
    stage = StageRun.begin(store, caller, progress)
    model = stage.model(strong)
    calls_before, cached_before = caller.counters.calls, caller.counters.cached

    async def ask(job: _Escalation) -> None:
        checks = [c for c in job.item.checklist if c.id in job.checks]
        item = job.item.model_copy(update={"checklist": checks})
        verdicts = await judge_response(model, item, job.response, strong_settings)
        update = {"judge": name, "decided_by": strong_id}
        store.put_verdicts(v.model_copy(update=update) for v in verdicts)

    await stage.each(f"escalate ({strong_id})", jobs, strong.max_concurrency, ask)
    _record_judge(store, name)
    facts = CascadeFacts(
        judge=name,
        cheap=decider,
        cheap_model=cheap.name,
        strong=strong_id,
        band=band,
        fitted_on=fitted_on,
        escalated=chosen,
        replies=len(responses) - len(failed),
        reused=len(reused),
        called=stage.caller.counters.calls - calls_before,
        cached=stage.caller.counters.cached - cached_before,
        slice=scope.spec,
    )
    summary = cascade_summary(
        store,
        facts,
        target_agreement=settings.target_agreement,
        budget_calls=settings.budget_calls,
        graded=graded,
        reference=settings.reference,
        b=settings.b,
        seed=settings.seed,
        level=settings.level,
    )
    store.put_record(CASCADE_RECORD, name, summary)
    return summary


def _record_judge(store: RunStore, name: str) -> None:
    judges = store.get_meta("judges", {})
    judges[name] = {"mode": "cascade", "prompts": []}
    store.set_meta("judges", judges)
