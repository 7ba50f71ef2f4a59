"""`checkbench calibrate`: calibrate a log-prob judge's P(yes) to a reference judge; and the
judge that `leaderboard` and `score` read with `--calibration`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer import _click

from checkbench import api
from checkbench.choices import CalibrationMethod as Method
from checkbench.choices import Decision
from checkbench.cli import app
from checkbench.cli.judges_render import print_calibration
from checkbench.console.options import AsJson, ReferenceFile, ReferenceJudge
from checkbench.console.render import console


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


def calibrated_judge(
    ctx: typer.Context, run_dir: Path, judge_id: str | None, calibration: str | None
) -> str | None:
    """The judge whose verdicts to score: with --calibration, the calibrated judge (its
    verdicts stored first), else --judge-id."""
    if calibration is None:
        return judge_id
    if judge_id is not None:
        raise _click.exceptions.UsageError(
            "--calibration names the judge to score: leave out --judge-id", ctx
        )
    return api.apply_calibration(run_dir, calibration).name
