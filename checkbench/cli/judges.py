"""The judge-quality commands: `checkbench calibrate` (a log-prob judge's P(yes) calibrated to a
reference) and `checkbench agreement` (a run's verdicts against human ones or a reference
judge's), with their terminal output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table
from typer import _click

from checkbench import api
from checkbench.choices import CalibrationMethod as Method
from checkbench.choices import Decision
from checkbench.cli import app
from checkbench.console.options import AsJson, JudgeIds, ReferenceFile, ReferenceJudge, Unscored
from checkbench.console.render import console, estimate_cell, estimate_inline, stat
from checkbench.stats.notation import RATE_DIGITS, SCORE_DIGITS

if TYPE_CHECKING:
    from checkbench.judges.calibration import CalibrationReport
    from checkbench.judges.human import JudgeAgreement
    from checkbench.judges.reference import ModelShift, ReferenceAgreement
    from checkbench.stats.estimate import Stat


@app.command()
def calibrate(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with the judges' verdicts.")],
    judge_id: Annotated[
        str,
        typer.Option(
            "--judge-id",
            help="The log-prob judge stored in the run to calibrate, by its id (e.g. "
            "local:SmolLM2-135M-Instruct.Q4_1#logprob).",
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
    as_json: AsJson = False,
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
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    print_calibration(report)
    done = [f"calibration kept in the run as [bold]{report.name}[/]"]
    if apply:
        done.append("its verdicts stored")
    if export is not None:
        done.append(f"artefact written to {export}")
    console.print("; ".join(done), highlight=False)


@app.command()
def agreement(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with judge verdicts.")],
    human: Annotated[
        Path | None,
        typer.Option(help="JSONL of human verdicts: item_id, model, check_id, passed."),
    ] = None,
    reference_judge: ReferenceJudge = None,
    reference_file: ReferenceFile = None,
    judge_id: JudgeIds = None,
    unscored_policy: Unscored = "zero",
    as_json: AsJson = False,
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
        if as_json:
            print(json.dumps([r.model_dump(mode="json") for r in results], indent=2))
        else:
            print_human_agreement(results)
        return
    shifts = api.reference_agreement(
        run_dir,
        reference_judge,
        reference_file=reference_file,
        judges=judge_id or (),
        policy=unscored_policy,
    )
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in shifts], indent=2))
        return
    for result in shifts:
        print_reference_agreement(result)


def inline(value: Stat | None, digits: int = RATE_DIGITS) -> str:
    """A statistic and its interval on one line: 0.833 [0.71, 0.95]; "-" where undefined."""
    if value is None:
        return estimate_inline(None, None, None)
    return estimate_inline(value.value, value.low, value.high, digits)


def _score(value: Stat) -> str:
    return estimate_cell(value.value, value.low, value.high)


def _shift(value: Stat) -> str:
    return estimate_cell(value.value, value.low, value.high, signed=True)


def _rank(rank: float) -> str:
    return f"{rank:g}"


def agreement_line(result: ReferenceAgreement) -> str:
    """Per-check agreement with the reference, with intervals and what was not counted."""
    a = result.agreement
    parts = ", ".join(
        f"{name} {inline(getattr(a, name))}"
        for name in ("agreement", "kappa", "alpha", "sensitivity", "specificity")
    )
    return (
        f"agreement ({a.n} checks, {a.clusters} items): {parts}; unscored {a.unscored} by the "
        f"judge, {a.gold_missing} by the reference; only the reference {a.only_human}, only "
        f"the judge {a.only_judge}"
    )


def ranking_line(result: ReferenceAgreement) -> str:
    """What replacing the reference by the judge does to the model ranking."""
    r = result.ranking
    policy = "count as 0" if r.policy == "zero" else "left out"
    largest = inline(r.max_abs_shift, SCORE_DIGITS)
    model = f" ({r.max_shift_model})" if r.max_shift_model else ""
    models = f"{len(r.models)} model" + ("" if len(r.models) == 1 else "s")
    return (
        f"ranking ({r.items} items, {r.responses} responses, {models}): "
        f"Spearman {inline(r.spearman)}, Kendall tau_b {inline(r.kendall_tau_b)}, largest "
        f"shift {largest} points{model}; unscored responses {r.judge_unscored} by the judge, "
        f"{r.reference_unscored} by the reference ({policy})"
    )


def models_table(title: str, models: list[ModelShift]) -> Table:
    """Per model: its score under the reference and under the judge, the shift, the ranks."""
    table = Table(
        title=title,
        caption="scores 0-100 with 95% bootstrap intervals over items; shift = judge - "
        "reference; rank 1 = best",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("model", overflow="fold")
    for column in ("items", "reference", "judge", "shift", "rank ref -> judge"):
        table.add_column(column, justify="right")
    for m in sorted(models, key=lambda m: (m.reference_rank, m.model)):
        table.add_row(
            m.model,
            str(m.items),
            _score(m.reference),
            _score(m.judge),
            _shift(m.shift),
            f"{_rank(m.reference_rank)} -> {_rank(m.judge_rank)}",
        )
    return table


def print_reference_agreement(result: ReferenceAgreement) -> None:
    """One judge against the reference: the agreement line, the ranking line, the table."""
    excluded = (
        f" (held-out items only: {result.excluded_items} training items left out)"
        if result.excluded_items
        else ""
    )
    console.print(
        f"[bold]{result.judge}[/] against reference [bold]{result.reference}[/]{excluded}",
        highlight=False,
    )
    console.print(agreement_line(result), highlight=False)
    console.print(ranking_line(result), highlight=False)
    console.print(
        models_table(f"Model scores: {result.reference} -> {result.judge}", result.ranking.models)
    )


def _before_after(report: CalibrationReport) -> Table:
    table = Table(
        title=f"Held-out items only: {report.judge} before and after calibration "
        f"({report.name}), against {report.reference}",
        caption=f"{report.test.items} held-out items; 95% bootstrap intervals over items; "
        "before: the judge's own verdicts, after: calibrated",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("figure", no_wrap=True)
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    rows = {
        "checks (n)": lambda r: str(r.agreement.n),
        "agreement": lambda r: stat(r.agreement.agreement),
        "kappa": lambda r: stat(r.agreement.kappa),
        "alpha": lambda r: stat(r.agreement.alpha),
        "sensitivity": lambda r: stat(r.agreement.sensitivity),
        "specificity": lambda r: stat(r.agreement.specificity),
        "unscored": lambda r: str(r.agreement.unscored),
        "Spearman": lambda r: stat(r.ranking.spearman),
        "Kendall tau_b": lambda r: stat(r.ranking.kendall_tau_b),
        "largest shift (points)": lambda r: _score(r.ranking.max_abs_shift),
        "largest shift model": lambda r: r.ranking.max_shift_model or "-",
    }
    for label, cell in rows.items():
        table.add_row(label, cell(report.before), cell(report.after))
    return table


def print_calibration(report: CalibrationReport) -> None:
    """The fit's facts (split, unusable verdicts, groups), then before/after on held-out items."""
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
    if report.groups:
        groups = ", ".join(f"{k} ({n})" for k, n in report.groups.items())
        console.print(f"groups with their own curve (training checks): {groups}", highlight=False)
    console.print(_before_after(report))
    for side in (report.before, report.after):
        console.print(
            models_table(
                f"Model scores, held-out items only: {side.reference} -> {side.judge}",
                side.ranking.models,
            )
        )


_HUMAN_METRICS = {
    "agreement": "agreement",
    "kappa": "kappa",
    "positive_f1": "Pos F1",
    "negative_f1": "Neg F1",
    "sensitivity": "sensitivity",
    "specificity": "specificity",
}


def print_human_agreement(results: Sequence[JudgeAgreement]) -> None:
    """Per-check agreement of each judge with the human verdicts: one column per judge, so
    long judge names and intervals fit an 80-column terminal."""
    table = Table(
        title="Judge vs human verdicts, per check (95% bootstrap intervals over items)",
        caption="agreement is FB-Bench's consistency rate; unscored judge verdicts count as "
        "disagreements",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("judge", no_wrap=True)
    for r in results:
        table.add_column(r.judge, justify="right", overflow="fold")
    table.add_row("checks (n)", *(str(r.n) for r in results))
    for metric, label in _HUMAN_METRICS.items():
        table.add_row(label, *(stat(getattr(r, metric)).replace("\n", " ") for r in results))
    counts = (
        ("unscored", "unscored"),
        ("human undecided", "gold_missing"),
        ("only human", "only_human"),
        ("only judge", "only_judge"),
    )
    for label, field in counts:
        table.add_row(label, *(str(getattr(r, field)) for r in results))
    console.print(table)
