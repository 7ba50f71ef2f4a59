"""What a cascade of judges did (judges.cascade): how many checks it escalated, what the strong
judge's calls cost and saved, and, where a reference judge graded the run, how well the cascade
and the cheap judge alone agree with it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from checkbench.judges.reference import training_items
from checkbench.llm.models_file import Price
from checkbench.schema import Verdict
from checkbench.stats.agreement import VerdictAgreement, verdict_agreement
from checkbench.store import RecordKind, RunStore


class CascadeSummary(BaseModel):
    """A cascade's figures. Costs are in USD, None when the judge has no price (or the
    strong judge has not been called). Each judge's calls in the run are counted and billed;
    the cascade's own strong cost and that of the strong judge grading every reply are
    estimated as its mean cost per call in this run times the escalated replies, and times
    every reply (each of its calls grades only the escalated checks of a reply, so the full
    cost is underestimated and the saving understated)."""

    judge: str
    cheap: str
    cheap_model: str | None = None
    """The cheap judge's model as the run names it (its calls and cost are billed under it)."""
    strong: str
    slice: str = ""
    """The slice cascaded on, as its flags ("" for the whole run)."""
    band: tuple[float, float]
    target_agreement: float | None = None
    band_fitted_on: int | None = None
    """Labelled checks the band was fitted on (with a target agreement), else None."""
    budget_calls: int | None = None
    checks: int
    escalated: int
    escalated_share: float | None
    replies: int
    """Replies the cascade graded (their candidate answered)."""
    escalated_replies: int
    """Replies with an escalated check: the strong judge's calls, one per reply."""
    reused: int
    """Escalated checks the strong judge had decided before (resumed, or another band)."""
    strong_calls: int
    strong_cached: int
    """Calls to the strong judge made by this invocation, and answered from the run's cache."""
    strong_calls_in_run: int
    strong_cost_in_run_usd: float | None
    """What the strong judge's calls in this run cost (every cascade with it)."""
    strong_cost_usd: float | None
    """Estimated cost of this cascade's strong calls: the mean per call x escalated replies."""
    all_strong_cost_usd: float | None
    """Estimated cost of the strong judge grading every reply: the mean per call x replies."""
    saved_usd: float | None
    """all_strong_cost_usd - strong_cost_usd: the strong judge's calls saved, at its price."""
    cheap_calls_in_run: int = 0
    cheap_cost_usd: float | None = None
    """What the cheap judge's calls in this run cost (None: no price)."""
    cascade_cost_usd: float | None = None
    """cheap_cost_usd + strong_cost_usd: what the cascade cost."""
    net_saved_usd: float | None = None
    """all_strong_cost_usd - cascade_cost_usd: saved against judging every reply with the
    strong judge alone, the cheap judge's cost counted."""
    calls_saved: int
    """Strong-judge calls not made: replies minus escalated replies."""
    unscored: int
    reference: str | None = None
    excluded_items: int = 0
    """Items left out of the agreement figures: the cheap judge's calibration training items."""
    agreement: VerdictAgreement | None = None
    cheap_agreement: VerdictAgreement | None = None


CASCADE_RECORD = RecordKind("cascade", CascadeSummary)
"""Record kind of a CascadeSummary in the run store, keyed by the cascade's judge id."""


@dataclass(frozen=True)
class CascadeFacts:
    """What the cascade stage knows when it is done, for `cascade_summary`."""

    judge: str
    cheap: str
    cheap_model: str
    strong: str
    band: tuple[float, float]
    fitted_on: int | None
    escalated: set[tuple[str, str, int, str]]
    replies: int
    reused: int
    called: int
    cached: int
    slice: str = ""


def _judge_cost(store: RunStore, model: str) -> tuple[int, float | None]:
    """A judge model's calls in the run and what they cost (None: no price)."""
    usage = [u for u in store.usage() if u.model == model and u.role == "judge"]
    calls = sum(u.calls for u in usage)
    priced = store.prices().get(model)
    if priced is None:
        return calls, None
    price = Price.model_validate(priced)
    return calls, sum(price.billed(u) for u in usage)


def cascade_summary(
    store: RunStore,
    facts: CascadeFacts,
    *,
    target_agreement: float | None,
    budget_calls: int | None,
    graded: Sequence[Verdict],
    reference: str | None,
    b: int,
    seed: int,
    level: float,
) -> CascadeSummary:
    """The summary of a cascade from its stored verdicts and the run's accounting."""
    own = store.verdicts(facts.judge)
    calls, cost = _judge_cost(store, facts.strong)
    cheap_calls, cheap_cost = _judge_cost(store, facts.cheap_model)
    escalated_replies = len({key[:3] for key in facts.escalated})
    per_call = cost / calls if cost is not None and calls else None
    agreements: dict[str, VerdictAgreement] = {}
    excluded: set[str] = set()
    if reference is not None:
        excluded = training_items(store, facts.cheap)
        gold = [v for v in store.verdicts(reference) if v.item_id not in excluded]
        for key, verdicts in (("agreement", own), ("cheap_agreement", graded)):
            kept = [v for v in verdicts if v.item_id not in excluded]
            agreements[key] = verdict_agreement(gold, kept, b=b, seed=seed, level=level)
    strong_cost = _times(per_call, escalated_replies)
    all_strong = _times(per_call, facts.replies)
    cascade_cost = (
        None if cheap_cost is None or (strong_cost is None and escalated_replies) else
        cheap_cost + (strong_cost or 0.0)
    )  # fmt: skip
    return CascadeSummary(
        judge=facts.judge,
        cheap=facts.cheap,
        cheap_model=facts.cheap_model,
        strong=facts.strong,
        slice=facts.slice,
        band=facts.band,
        target_agreement=target_agreement,
        band_fitted_on=facts.fitted_on,
        budget_calls=budget_calls,
        checks=len(own),
        escalated=len(facts.escalated),
        escalated_share=len(facts.escalated) / len(own) if own else None,
        replies=facts.replies,
        escalated_replies=escalated_replies,
        reused=facts.reused,
        strong_calls=facts.called,
        strong_cached=facts.cached,
        strong_calls_in_run=calls,
        strong_cost_in_run_usd=cost,
        strong_cost_usd=strong_cost,
        all_strong_cost_usd=all_strong,
        saved_usd=_times(per_call, facts.replies - escalated_replies),
        cheap_calls_in_run=cheap_calls,
        cheap_cost_usd=cheap_cost,
        cascade_cost_usd=cascade_cost,
        net_saved_usd=None
        if all_strong is None or cascade_cost is None
        else all_strong - cascade_cost,
        calls_saved=facts.replies - escalated_replies,
        unscored=sum(v.passed is None for v in own),
        reference=reference,
        excluded_items=len(excluded),
        **agreements,
    )


def _times(per_call: float | None, calls: int) -> float | None:
    return None if per_call is None else per_call * calls
