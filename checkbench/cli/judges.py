"""The judge-quality commands: `checkbench calibrate` (a log-prob judge's P(yes) calibrated to a
reference) and `checkbench agreement` (a run's verdicts against human ones or a reference
judge's), with their terminal output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer import _click

from checkbench import api
from checkbench.choices import CalibrationMethod as Method
from checkbench.choices import Decision
from checkbench.cli import app
from checkbench.console.options import (
    TABLE,
    JudgeIds,
    ReferenceFile,
    ReferenceJudge,
    Unscored,
    with_output,
)
from checkbench.console.output import Printout
from checkbench.console.render import console, estimate_inline
from checkbench.console.tables import Cell, Column, Grid, cell, estimate, stat_cell
from checkbench.stats.notation import FEW_MARK, FEW_NOTE, RATE_DIGITS, SCORE_DIGITS, few_units

if TYPE_CHECKING:
    from checkbench.judges.calibration import CalibrationReport
    from checkbench.judges.human import JudgeAgreement
    from checkbench.judges.reference import ModelShift, ReferenceAgreement
    from checkbench.stats.estimate import Stat


@app.command()
@with_output
def calibrate(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with the judges' verdicts.")],
    judge_id: Annotated[
        str,
        typer.Option(
            "--judge-id",
            help="The log-prob judge stored in the run to calibrate, by the id `checkbench "
            "judge --mode logprob` printed (a model's id and #logprob).",
        ),
    ],
    reference_judge: ReferenceJudge = None,
    reference_file: ReferenceFile = None,
    method: Annotated[
        Method,
        typer.Option(help="Logistic regression on logit P(yes), or isotonic regression."),
    ] = "logistic",
    by: Annotated[
        str | None,
        typer.Option(
            help="Also fit a curve per group of checks: category, or tag:FACET (e.g. "
            "tag:task); a group with fewer than --min-group training checks uses the "
            "whole-run curve."
        ),
    ] = None,
    decision: Annotated[
        Decision,
        typer.Option(
            help="Pass a check at calibrated P(pass) >= 0.5 (bayes), or at the level that "
            "passes as many training checks as the reference did (rate)."
        ),
    ] = "bayes",
    test_fraction: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of the items held out for the report.")
    ] = 0.5,
    seed: Annotated[int, typer.Option(help="Seed of the item split.")] = 0,
    min_group: Annotated[
        int, typer.Option(min=1, help="Training checks a group needs for a curve of its own.")
    ] = 20,
    name: Annotated[
        str | None,
        typer.Option(help="The calibrated judge's id (default: <judge id>#calibrated)."),
    ] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Store the calibrated judge's verdicts in the run.")
    ] = False,
    export: Annotated[
        Path | None, typer.Option(help="Write the calibration artefact (JSON) to this file.")
    ] = None,
    printout: Printout = TABLE,
) -> None:
    """Calibrate a log-prob judge's P(yes) to a reference judge (after RocketEval).

    The items are split by a seeded draw; the curve is fitted on the training items and every
    figure shown is on the held-out items only: agreement with the reference and the model
    ranking, before and after calibration. The calibration is kept in the run under its name
    (`leaderboard --calibration NAME` grades with it).
    """
    fit = api.CalibrationFit(
        judge=judge_id,
        reference=reference_judge,
        reference_file=reference_file,
        method=method,
        by=by,
        decision=decision,
        test_fraction=test_fraction,
        seed=seed,
        min_group=min_group,
        name=name,
        apply=apply,
        export=export,
    )
    report = api.calibrate(run_dir, fit)
    if printout.table:
        print_calibration_facts(report)
    printout.grids(*calibration_grids(report))
    printout.finish(lambda: report.model_dump(mode="json"))
    if not printout.table:
        return
    done = [f"calibration kept in the run as [bold]{report.name}[/]"]
    if apply:
        done.append("its verdicts stored")
    if export is not None:
        done.append(f"artefact written to {export}")
    console.print("; ".join(done), highlight=False)


@app.command()
@with_output
def agreement(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with judge verdicts.")],
    human: Annotated[
        Path | None,
        typer.Option(
            help="JSONL of human verdicts: item_id, model, check_id, passed; or human:NAME, "
            "the labels NAME gave in the run (`view --annotate`)."
        ),
    ] = None,
    reference_judge: ReferenceJudge = None,
    reference_file: ReferenceFile = None,
    judge_id: JudgeIds = None,
    unscored_policy: Unscored = "zero",
    printout: Printout = TABLE,
) -> None:
    """Judges' agreement per check with human verdicts, or with a reference judge.

    --human: consistency rate (FB-Bench's share of checks where judge and human agree), kappa,
    F1. --reference-judge / --reference-file: agreement, kappa, alpha, sensitivity, specificity,
    and what the judge in the reference's place does to the model scores and their ranking
    (Spearman, Kendall tau_b, the largest shift). Every figure comes with a 95% bootstrap
    interval over items.
    """
    if human is None and reference_judge is None and reference_file is None:
        raise _click.exceptions.UsageError(
            "give --human FILE, --reference-judge ID or --reference-file FILE", ctx
        )
    if human is not None:
        if reference_judge is not None or reference_file is not None:
            raise _click.exceptions.UsageError(
                "--human takes no --reference-judge or --reference-file: run them apart", ctx
            )
        results = api.judge_agreement(run_dir, human, judges=judge_id or ())
        printout.grids(human_grid(results))
        printout.finish(lambda: [r.model_dump(mode="json") for r in results])
        return
    shifts = api.reference_agreement(
        run_dir,
        reference_judge,
        reference_file=reference_file,
        judges=judge_id or (),
        policy=unscored_policy,
    )
    printout.grids(*(models_grid(result) for result in shifts))
    printout.finish(lambda: [r.model_dump(mode="json") for r in shifts])


@app.command("export-labels")
def export_labels(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with human labels.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSONL file to write.")],
    annotator: Annotated[
        str | None, typer.Option(help="Only this person's labels (default: everyone's).")
    ] = None,
) -> None:
    """Write the labels people gave in `view --annotate` as JSONL (atomically).

    One label a line: item_id, model, sample (unless 0), check_id, passed (what `agreement
    --human FILE` reads), with annotator, judge (human:NAME), note, at (seconds since the
    epoch, UTC) and the queue's reason for offering the check.
    """
    written = api.export_labels(run_dir, out, annotator=annotator)
    console.print(f"{written} labels written to [bold]{out}[/]", highlight=False)


def _few(value: Stat | None) -> str:
    few = value is not None and value.value is not None and few_units(value.units)
    return FEW_MARK if few else ""


def inline(value: Stat | None, digits: int = RATE_DIGITS) -> str:
    """A statistic and its interval on one line: 0.833 [0.71, 0.95]; "-" where undefined;
    marked FEW_MARK over fewer than FEW_UNITS units."""
    if value is None:
        return estimate_inline(None, None, None)
    return estimate_inline(value.value, value.low, value.high, digits, value.why) + _few(value)


def _flagged(value: Stat | None, digits: int = RATE_DIGITS) -> Cell:
    """A table cell of a statistic, marked FEW_MARK over fewer than FEW_UNITS units."""
    shown = stat_cell(value, digits)
    return replace(shown, value=shown.value + _few(value))


def _rank(rank: float) -> str:
    return f"{rank:g}"


def agreement_line(result: ReferenceAgreement) -> str:
    """Per-check agreement with the reference, with intervals and what was not counted."""
    a = result.agreement
    parts = ", ".join(
        f"{name.replace('_', ' ')} {inline(getattr(a, name))}"
        for name in (
            "agreement",
            "kappa",
            "balanced_accuracy",
            "alpha",
            "sensitivity",
            "specificity",
        )
    )
    base = f"{a.base_rate:.3f}" if a.base_rate is not None else "-"
    few = f" ({FEW_NOTE})" if FEW_MARK in parts else ""
    return (
        f"agreement ({a.n} checks, {a.clusters} items; the reference passes {base}): {parts}; "
        f"unscored {a.unscored} by the judge, {a.gold_missing} by the reference; only the "
        f"reference {a.only_reference}, only the judge {a.only_judge}{few}"
    )


def ranking_line(result: ReferenceAgreement) -> str:
    """What replacing the reference by the judge does to the model ranking."""
    r = result.ranking
    policy = "count as 0" if r.policy == "zero" else "left out"
    largest = inline(r.largest_shift, SCORE_DIGITS)
    model = f" ({r.largest_shift_model})" if r.largest_shift_model else ""
    models = f"{len(r.models)} model" + ("" if len(r.models) == 1 else "s")
    figures = (
        f"Spearman {inline(r.spearman)}, Kendall tau_b {inline(r.kendall_tau_b)}, largest "
        f"shift {largest} points{model}"
    )
    few = f" ({FEW_NOTE})" if FEW_MARK in figures else ""
    return (
        f"ranking ({r.items} items, {r.responses} responses, {models}): {figures}; unscored "
        f"responses {r.judge_unscored} by the judge, {r.reference_unscored} by the reference "
        f"({policy}){few}"
    )


def _models_grid(title: str, models: list[ModelShift], notes: list[str]) -> Grid:
    """Per model: its score under the reference and under the judge, the shift, the ranks."""
    columns = [Column("model", numeric=False)]
    columns += [Column(name) for name in ("items", "reference", "judge", "shift")]
    columns.append(Column("rank ref -> judge"))
    rows = [
        [
            cell(m.model),
            cell(m.items),
            estimate(m.reference.value, m.reference.low, m.reference.high),
            estimate(m.judge.value, m.judge.low, m.judge.high),
            estimate(m.shift.value, m.shift.low, m.shift.high, signed=True),
            cell(f"{_rank(m.reference_rank)} -> {_rank(m.judge_rank)}"),
        ]
        for m in sorted(models, key=lambda m: (m.reference_rank, m.model))
    ]
    notes = [
        *notes,
        "scores 0-100 with 95% bootstrap intervals over items; shift = judge - reference; "
        "rank 1 = best",
    ]
    return Grid(title=title, columns=columns, rows=rows, notes=notes)


def models_grid(result: ReferenceAgreement) -> Grid:
    """One judge against the reference: the model scores, under the agreement and ranking
    lines."""
    excluded = (
        f" (held-out items only: {result.excluded_items} training items left out)"
        if result.excluded_items
        else ""
    )
    return _models_grid(
        f"{result.judge} against reference {result.reference}{excluded}: model scores",
        result.ranking.models,
        [agreement_line(result), ranking_line(result)],
    )


def _before_after(report: CalibrationReport) -> Grid:
    rows = {
        "checks (n)": lambda r: cell(r.agreement.n),
        "reference passes (base rate)": lambda r: cell(_rate(r.agreement.base_rate)),
        "judge passes": lambda r: cell(f"{r.agreement.judged_positive} of {r.agreement.n}"),
        "agreement": lambda r: _flagged(r.agreement.agreement),
        "kappa": lambda r: _flagged(r.agreement.kappa),
        "balanced accuracy": lambda r: _flagged(r.agreement.balanced_accuracy),
        "alpha": lambda r: _flagged(r.agreement.alpha),
        "sensitivity": lambda r: _flagged(r.agreement.sensitivity),
        "specificity": lambda r: _flagged(r.agreement.specificity),
        "unscored": lambda r: cell(r.agreement.unscored),
        "Spearman": lambda r: _flagged(r.ranking.spearman),
        "Kendall tau_b": lambda r: _flagged(r.ranking.kendall_tau_b),
        "largest shift (points)": lambda r: _flagged(r.ranking.largest_shift, SCORE_DIGITS),
        "largest shift model": lambda r: cell(r.ranking.largest_shift_model or "-"),
    }
    return Grid(
        title=f"Held-out items only: {report.judge} before and after calibration "
        f"({report.name}), against {report.reference}",
        columns=[Column("figure", numeric=False), Column("before"), Column("after")],
        rows=[
            [cell(label), value(report.before), value(report.after)]
            for label, value in rows.items()
        ],
        notes=[
            f"{report.test.items} held-out items; 95% bootstrap intervals over items; before: "
            f"the judge's own verdicts, after: calibrated; {FEW_NOTE}"
        ],
    )


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_calibration_facts(report: CalibrationReport) -> None:
    """The fit's facts: split, unusable verdicts, groups, fallbacks, and the warning of a
    calibration that says nothing."""
    by = f", by {report.by}" if report.by else ""
    console.print(
        f"calibration [bold]{report.name}[/]: {report.method}{by}, decision {report.decision} "
        f"(threshold {report.threshold:.3f}), seed {report.seed}, artefact v{report.version}",
        highlight=False,
    )
    console.print(
        f"train: {report.train.items} items, {report.train.verdicts} checks "
        f"({report.train.reference_positive} passed by the reference); test (held out): "
        f"{report.test.items} items, {report.test.verdicts} checks "
        f"({report.test.reference_positive} passed); unusable: {report.unusable} verdicts "
        "without P(yes) or a reference label",
        highlight=False,
    )
    if report.by:
        groups = ", ".join(f"{k} ({n})" for k, n in report.groups.items()) or "none"
        console.print(f"groups with their own curve (training checks): {groups}", highlight=False)
    if report.fallback_groups:
        fallback = "; ".join(f"{k or '(none)'}: {why}" for k, why in report.fallback_groups.items())
        console.print(
            f"groups too small to fit, using the whole-run curve: {fallback}", highlight=False
        )
    if report.warning:
        console.print(report.warning, style="bold yellow", highlight=False, soft_wrap=True)


def calibration_grids(report: CalibrationReport) -> list[Grid]:
    """Before and after calibration on the held-out items, then the model scores of each."""
    return [
        _before_after(report),
        *(
            _models_grid(
                f"Model scores, held-out items only: {side.reference} -> {side.judge}",
                side.ranking.models,
                [],
            )
            for side in (report.before, report.after)
        ),
    ]


_HUMAN_METRICS = {
    "agreement": "agreement",
    "kappa": "kappa",
    "balanced_accuracy": "balanced acc.",
    "positive_f1": "Pos F1",
    "negative_f1": "Neg F1",
    "sensitivity": "sensitivity",
    "specificity": "specificity",
}
_HUMAN_COUNTS = {
    "unscored": "unscored",
    "gold_missing": "human undecided",
    "only_reference": "only human",
    "only_judge": "only judge",
}


def human_grid(results: Sequence[JudgeAgreement]) -> Grid:
    """Per-check agreement of each judge with the human verdicts: a row per judge (a column
    per judge where that fits better)."""
    columns = [Column("judge", numeric=False), Column("checks (n)")]
    columns += [Column(label) for label in _HUMAN_METRICS.values()]
    columns += [Column(label) for label in _HUMAN_COUNTS.values()]
    rows = [
        [
            cell(r.judge),
            cell(r.n),
            *(stat_cell(getattr(r, metric)) for metric in _HUMAN_METRICS),
            *(cell(getattr(r, name)) for name in _HUMAN_COUNTS),
        ]
        for r in results
    ]
    return Grid(
        title="Judge vs human verdicts, per check (95% bootstrap intervals over items)",
        columns=columns,
        rows=rows,
        notes=[
            "agreement is FB-Bench's consistency rate; unscored judge verdicts count as "
            "disagreements"
        ],
        transposable=True,
    )
