"""`checkbench judge`, `leaderboard` and `run`: judging and scoring a run."""

from __future__ import annotations

import shlex
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from checkbench import api, registry
from checkbench.choices import ChecklistChoice, ScoringProtocol
from checkbench.cli import app
from checkbench.cli.cascade import (
    Band,
    BudgetCalls,
    CascadeCalibration,
    CascadeReference,
    EscalateTo,
    TargetAgreement,
    run_cascade,
)
from checkbench.console import err_console
from checkbench.console.options import (
    AUTO_FORMAT,
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    TABLE,
    CalibrationName,
    ExecutorChoice,
    Format,
    JudgeId,
    JudgeLanguage,
    JudgeMode,
    JudgeModel,
    Models,
    RayAddress,
    Samples,
    Temperature,
    Unscored,
    refuse_judge_and_calibration,
    with_cost_limit,
    with_model_options,
    with_output,
    with_slice,
    with_slice_and_models,
    with_table_output,
)
from checkbench.console.output import Printout
from checkbench.console.render import (
    console,
    exit_if_all_failed,
    note_scores,
    print_tally,
    report_hint,
)
from checkbench.distributed import executor_named
from checkbench.errors import InputError
from checkbench.fbbench.cli import show_leaderboard
from checkbench.llm import ModelOptions
from checkbench.steps.budget import NO_LIMIT, CostLimit
from checkbench.steps.progress import RichProgress
from checkbench.steps.slices import WHOLE_SLICE, Slice


@app.command()
@with_model_options
@with_slice_and_models
@with_cost_limit
@with_output
def judge(
    run_dir: Annotated[Path, typer.Argument(help="Run directory made by `generate`.")],
    judge_model: JudgeModel = DEFAULT_MODEL,
    judge_mode: JudgeMode = "text",
    language: JudgeLanguage = "auto",
    executor: ExecutorChoice = "local",
    ray_address: RayAddress = None,
    escalate_to: EscalateTo = None,
    band: Band = None,
    target_agreement: TargetAgreement = None,
    reference_judge: CascadeReference = None,
    budget_calls: BudgetCalls = None,
    calibration: CascadeCalibration = None,
    options: ModelOptions = DEFAULT_OPTIONS,
    slice_: Slice = WHOLE_SLICE,
    cost: CostLimit = NO_LIMIT,
    printout: Printout = TABLE,
) -> None:
    """Judge every response of a run against its item's checklist; exits 1 when every call
    it made failed.

    The slice flags judge a part of the run; at --max-cost it stops with exit code 3. With
    --escalate-to, judge as a cascade: the --judge model grades every check by P(yes) and the
    checks it is unsure of go to the stronger model (the slice flags and --max-cost apply to
    both judges)."""
    if escalate_to is not None and printout.fmt not in ("table", "json"):
        raise InputError(
            "a cascade (--escalate-to) prints its summary as a table or as JSON: "
            "--format table or json",
            field="--format",
        )
    cascade = {"band": band, "target_agreement": target_agreement, "budget_calls": budget_calls}
    if run_cascade(
        run_dir,
        judge_model,
        escalate_to,
        **cascade,
        reference_judge=reference_judge,
        calibration=calibration,
        language=language,
        options=options,
        slice_=slice_,
        cost=cost,
        as_json=printout.fmt == "json",
    ):
        return
    with RichProgress() as progress:
        result = api.judge(
            run_dir,
            judge_model,
            settings=api.JudgeSettings(mode=judge_mode, language=language),
            options=options,
            progress=progress,
            executor=executor_named(executor, ray_address),
            slice_=slice_,
            cost=cost,
        )
    print_tally([result.stage], result.tally, printout=printout)
    printout.finish(lambda: {"judge": result.judge, "stages": [asdict(result.stage)]})
    command = registry.run_scorers()[result.protocol].command
    print_next_steps(run_dir, command, result.judge, result.tally.judges, printout)
    exit_if_all_failed([result.stage])


@app.command()
@with_output
def leaderboard(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with verdicts.")],
    judge_id: JudgeId = None,
    calibration: CalibrationName = None,
    unscored_policy: Unscored = "zero",
    stored_scores: Annotated[
        bool, typer.Option(help="Use imported files' own scores, not the verdicts.")
    ] = False,
    breakdowns: Annotated[bool, typer.Option(help="Also print breakdown tables.")] = True,
    min_score: Annotated[
        float | None,
        typer.Option(help="Exit 1 when a model's overall score is below this (0-100): a CI gate."),
    ] = None,
    checklist: Annotated[
        ChecklistChoice,
        typer.Option(
            help="Score with the items' checklists (full) or with the refined ones that "
            "`audit --write-refined` stored in the run (no model call)."
        ),
    ] = "full",
    printout: Printout = TABLE,
) -> None:
    """FB-Bench scores per model with 95% bootstrap intervals, n and unscored counts."""
    refuse_judge_and_calibration(ctx, judge_id, calibration)
    result = api.leaderboard(
        run_dir,
        judge=judge_id,
        calibration=calibration,
        settings=api.ScoringSettings(
            policy=unscored_policy,
            source="stored" if stored_scores else "verdicts",
            checklist=checklist,
        ),
    )
    note_scores(result.judge, result.scope, result.items, result.warning)
    show_leaderboard(result.scores, printout, breakdowns)
    if min_score is not None:
        exit_if_below(result.scores, min_score)


@app.command()
@with_model_options
@with_slice
@with_cost_limit
@with_table_output
def run(
    bench: Annotated[Path, typer.Argument(help="Benchmark file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory.")],
    model: Models = None,
    judge_model: JudgeModel = DEFAULT_MODEL,
    format_: Format = AUTO_FORMAT,
    temperature: Temperature = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Override the answer length.")
    ] = None,
    samples: Samples = 1,
    judge_mode: JudgeMode = "text",
    language: JudgeLanguage = "auto",
    unscored_policy: Unscored = "zero",
    protocol: Annotated[
        ScoringProtocol,
        typer.Option(
            help="How to score: fb-bench (EC/RM leaderboard with breakdowns), conv-to-bench "
            "(mean of each item's checks), or auto (fb-bench when every item has its scenario "
            "and task tags)."
        ),
    ] = "auto",
    executor: ExecutorChoice = "local",
    ray_address: RayAddress = None,
    options: ModelOptions = DEFAULT_OPTIONS,
    slice_: Slice = WHOLE_SLICE,
    cost: CostLimit = NO_LIMIT,
    printout: Printout = TABLE,
) -> None:
    """Generate, judge and score in one go, by the benchmark's protocol (on a slice of it);
    exits 3 at the cost limit."""
    with RichProgress() as progress:
        result = api.run(
            bench,
            model or [DEFAULT_MODEL],
            judge_model,
            out,
            fmt=format_.value,
            settings=api.GenerationSettings(
                temperature=temperature, max_tokens=max_tokens, samples=samples
            ),
            judge_settings=api.JudgeSettings(mode=judge_mode, language=language),
            scoring=api.ScoringSettings(policy=unscored_policy, protocol=protocol),
            options=options,
            progress=progress,
            executor=executor_named(executor, ray_address),
            slice_=slice_,
            cost=cost,
        )
    print_tally(result.stages, result.tally, failures=True, printout=printout)
    scorer = registry.run_scorers()[result.protocol]
    if printout.table:
        scorer.show(result.scores)
    elif scorer.grids is not None:
        printout.grids(*scorer.grids(result.scores))
    printout.finish(
        lambda: {
            "protocol": result.protocol,
            "judge": result.judge,
            "stages": [asdict(stage) for stage in result.stages],
            "scores": result.scores.model_dump(mode="json"),
        }
    )
    print_next_steps(out, scorer.command, result.judge, result.tally.judges, printout)
    exit_if_all_failed(result.stages)


def print_next_steps(
    out: Path, command: str, judge: str | None, judges: list[str], printout: Printout | None = None
) -> None:
    """Where the run is, and the commands that show it again as JSON and as a report; the
    judge is named when the run holds several (`judges`), as the command then needs it (on
    stderr when the printout's format is not a table)."""
    pick = f" --judge-id {shlex.quote(judge)}" if len(judges) > 1 and judge else ""
    json_command = f"checkbench {command} {shlex.quote(str(out))}{pick} --format json"
    lines = [  # a line per command: one that fits the terminal is never broken
        f"Run stored in [bold]{escape(str(out))}[/].",
        f"JSON: [bold]{escape(json_command)}[/];",
        report_hint(out),
    ]
    for line in lines:
        if printout is not None:
            printout.info(line)
        else:
            console.print(line, highlight=False)


def exit_if_below(board: api.FBBenchLeaderboard, min_score: float) -> None:
    """`--min-score`: name each model whose overall score is below it (or undefined) on
    stderr and exit 1."""
    below = [row for row in board.rows if row.overall is None or row.overall < min_score]
    for row in below:
        err_console.print(
            f"below --min-score {min_score:g}: {escape(row.model)} ({row.overall})",
            highlight=False,
            soft_wrap=True,
        )
    if below:
        raise typer.Exit(1)
