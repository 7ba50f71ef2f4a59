"""`checkbench judge --escalate-to`: the options of a cascade of judges and its summary."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from checkbench.console.render import console
from checkbench.errors import InputError
from checkbench.llm import ModelOptions
from checkbench.steps.budget import CostLimit
from checkbench.steps.progress import RichProgress
from checkbench.steps.slices import Slice

if TYPE_CHECKING:
    from checkbench.judges.cascade_summary import CascadeSummary
    from checkbench.stats.agreement import VerdictAgreement

EscalateTo = Annotated[
    str | None,
    typer.Option(
        "--escalate-to",
        help="Judge as a cascade: the --judge model grades every check by P(yes) (log-prob "
        "mode), and the checks it is unsure of go to this model (text mode), e.g. "
        "openai:gpt-4o.",
    ),
]
Band = Annotated[
    str | None,
    typer.Option(
        "--band",
        help="With --escalate-to: escalate the checks whose (calibrated) P(yes) is within "
        "LO,HI (default 0.2,0.8).",
    ),
]
TargetAgreement = Annotated[
    float | None,
    typer.Option(
        "--target-agreement",
        help="With --escalate-to: fit the narrowest band around 0.5 that reaches this "
        "agreement with --reference-judge on the checks it graded (the strong judge reckoned "
        "right on what it takes).",
    ),
]
CascadeReference = Annotated[
    str | None,
    typer.Option(
        "--reference-judge",
        help="With --escalate-to: a judge stored in the run whose verdicts label checks, for "
        "--target-agreement and the cascade's agreement figures.",
    ),
]
BudgetCalls = Annotated[
    int | None,
    typer.Option(
        "--budget-calls",
        help="With --escalate-to: at most this many strong-judge calls (one per reply), the "
        "most uncertain checks first.",
    ),
]
CascadeCalibration = Annotated[
    str | None,
    typer.Option(
        "--calibration",
        help="With --escalate-to: calibrate the cheap judge's P(yes) with this calibration "
        "(its name in the run, or an exported JSON file) before the band is applied.",
    ),
]


def run_cascade(
    run_dir: Path,
    judge_model: str,
    escalate_to: str | None,
    *,
    band: str | None,
    target_agreement: float | None,
    reference_judge: str | None,
    budget_calls: int | None,
    calibration: str | None,
    language: str,
    options: ModelOptions,
    slice_: Slice | None = None,
    cost: CostLimit | None = None,
    as_json: bool = False,
) -> bool:
    """Run and print the cascade when --escalate-to is given (True), else nothing (False);
    a cascade option without --escalate-to is refused."""
    from checkbench import api
    from checkbench.judges.cascade import DEFAULT_BAND, parse_band

    given = {
        "--band": band,
        "--target-agreement": target_agreement,
        "--reference-judge": reference_judge,
        "--budget-calls": budget_calls,
        "--calibration": calibration,
    }
    if escalate_to is None:
        stray = [flag for flag, value in given.items() if value is not None]
        if stray:
            raise InputError(f"{', '.join(stray)} go with --escalate-to MODEL", field=stray[0])
        return False
    if band is not None and target_agreement is not None:
        raise InputError("give --band or --target-agreement, not both", field="band")
    settings = api.CascadeSettings(
        band=parse_band(band) if band is not None else DEFAULT_BAND,
        target_agreement=target_agreement,
        reference=reference_judge,
        budget_calls=budget_calls,
        calibration=calibration,
        language=language,
    )
    with RichProgress() as progress:
        summary = api.cascade(
            run_dir,
            judge_model,
            escalate_to,
            settings,
            options=options,
            progress=progress,
            slice_=slice_,
            cost=cost,
        )
    if as_json:
        print(summary.model_dump_json(indent=2))
        return True
    print_cascade(summary)
    command = f"checkbench leaderboard {shlex.quote(str(run_dir))} --judge-id "
    console.print(
        f"Scores by the cascade: [bold]{escape(command + shlex.quote(summary.judge))}[/]",
        highlight=False,
    )
    return True


def _usd(value: float | None) -> str:
    return "unknown (no price)" if value is None else f"${value:.4f}"


def _agreement(label: str, a: VerdictAgreement) -> str:
    from checkbench.cli.judges import inline  # deferred: the module registers its commands

    return (
        f"{label} {inline(a.agreement)}, kappa {inline(a.kappa)}, balanced accuracy "
        f"{inline(a.balanced_accuracy)}"
    )


def print_cascade(s: CascadeSummary) -> None:
    """The cascade's escalations, the strong judge's calls and cost, and its agreement."""
    from checkbench.stats.notation import FEW_MARK, FEW_NOTE

    low, high = s.band
    how = (
        f"fitted to agreement {s.target_agreement:g} on {s.band_fitted_on} labelled checks"
        if s.target_agreement is not None
        else "given"
    )
    budget = f", budget {s.budget_calls} strong calls" if s.budget_calls is not None else ""
    share = f"{s.escalated_share:.3f}" if s.escalated_share is not None else "-"
    part = f" on {escape(s.slice)}" if s.slice else ""
    lines = [
        f"cascade [bold]{escape(s.judge)}[/]{part}: band {low:.3g}-{high:.3g} ({how}){budget}",
        f"escalated: {s.escalated} of {s.checks} checks ({share}) from {s.escalated_replies} "
        f"of {s.replies} replies; {s.reused} decided by the strong judge before; "
        f"{s.unscored} unscored",
        f"strong judge {escape(s.strong)}: {s.strong_calls} calls now ({s.strong_cached} "
        f"cached), {s.strong_calls_in_run} in the run costing {_usd(s.strong_cost_in_run_usd)}; "
        f"this cascade's ~{_usd(s.strong_cost_usd)}, every reply by the strong judge "
        f"~{_usd(s.all_strong_cost_usd)}: saved ~{_usd(s.saved_usd)} and {s.calls_saved} of "
        f"{s.replies} calls (estimated at its mean cost per call)",
        f"cheap judge {escape(s.cheap_model or s.cheap)}: {s.cheap_calls_in_run} calls in the run "
        f"costing {_usd(s.cheap_cost_usd)}; the cascade ~{_usd(s.cascade_cost_usd)} against "
        f"~{_usd(s.all_strong_cost_usd)} by the strong judge alone: saved "
        f"~{_usd(s.net_saved_usd)}",
    ]
    if s.agreement is not None and s.cheap_agreement is not None:
        a = s.agreement
        held = f", {s.excluded_items} calibration training items left out"
        held = held if s.excluded_items else ""
        alone = _agreement("cheap judge alone", s.cheap_agreement)
        figures = f"{_agreement('cascade', a)}; {alone}"
        few = f" ({FEW_NOTE})" if FEW_MARK in figures else ""
        lines.append(
            f"against {escape(s.reference or '')} ({a.n} checks, {a.clusters} items{held}): "
            f"{figures}{few}"
        )
        if s.target_agreement is not None:
            lines.append("(the band was fitted on these checks: the agreement is in-sample)")
    for line in lines:
        console.print(line, highlight=False)
