"""`checkbench judge`, `leaderboard` and `run`: judging and scoring a run."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from checkbench import api
from checkbench.choices import ScoringProtocol
from checkbench.cli import app
from checkbench.cli.judges import calibrated_judge
from checkbench.console.options import (
    AUTO_FORMAT,
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    AsJson,
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
    with_model_options,
)
from checkbench.console.render import (
    console,
    exit_if_all_failed,
    print_stages,
    report_hint,
)
from checkbench.convbench.cli import print_scores
from checkbench.distributed import executor_named
from checkbench.fbbench.cli import show_leaderboard, show_scored
from checkbench.llm import ModelOptions
from checkbench.steps.progress import RichProgress


@app.command()
@with_model_options
def judge(
    run_dir: Annotated[Path, typer.Argument(help="Run directory made by `generate`.")],
    judge_model: JudgeModel = DEFAULT_MODEL,
    judge_mode: JudgeMode = "text",
    language: JudgeLanguage = "auto",
    executor: ExecutorChoice = "local",
    ray_address: RayAddress = None,
    options: ModelOptions = DEFAULT_OPTIONS,
) -> None:
    """Judge every response of a run against its item's checklist; exits 1 when every call
    it made failed."""
    from checkbench.fbbench.scoring import is_fbbench_store
    from checkbench.store import RunStore

    settings = api.JudgeSettings(mode=judge_mode, language=language)
    with RichProgress() as progress:
        summary = api.judge(
            run_dir,
            judge_model,
            settings=settings,
            options=options,
            progress=progress,
            executor=executor_named(executor, ray_address),
        )
    print_stages(run_dir, [summary])
    with RunStore.existing(run_dir) as store:
        command = "leaderboard" if is_fbbench_store(store) else "convbench score"
    judge_id = api.judge_id(run_dir, judge_model, settings=settings, options=options)
    print_next_steps(run_dir, command, judge_id)
    exit_if_all_failed([summary])


@app.command()
def leaderboard(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with verdicts.")],
    judge_id: JudgeId = None,
    calibration: CalibrationName = None,
    unscored_policy: Unscored = "zero",
    stored_scores: Annotated[
        bool, typer.Option(help="Use imported files' own scores, not the verdicts.")
    ] = False,
    as_json: AsJson = False,
    breakdowns: Annotated[bool, typer.Option(help="Also print breakdown tables.")] = True,
) -> None:
    """FB-Bench scores per model with 95% bootstrap intervals, n and unscored counts."""
    board = api.leaderboard(
        run_dir,
        judge=calibrated_judge(ctx, run_dir, judge_id, calibration),
        policy=unscored_policy,
        source="stored" if stored_scores else "verdicts",
    )
    show_leaderboard(board, as_json, breakdowns)


@app.command()
@with_model_options
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
) -> None:
    """Generate, judge and score in one go, by the benchmark's protocol."""
    with RichProgress() as progress:
        summaries, board = api.run(
            bench,
            model or [DEFAULT_MODEL],
            judge_model,
            out,
            fmt=format_.value,
            settings=api.GenerationSettings(
                temperature=temperature, max_tokens=max_tokens, samples=samples
            ),
            judge_settings=api.JudgeSettings(mode=judge_mode, language=language),
            options=options,
            progress=progress,
            policy=unscored_policy,
            protocol=protocol,
            executor=executor_named(executor, ray_address),
        )
    print_stages(out, summaries, failures=True)
    if isinstance(board, api.BenchScores):
        console.print("Scored by the Conv-to-Bench protocol (mean of each item's checks).")
        print_scores(board, None)
        print_next_steps(out, "convbench score", board.judge)
    else:
        show_scored(board)
        print_next_steps(out, "leaderboard", board.judge)
    exit_if_all_failed(summaries)


def print_next_steps(out: Path, command: str, judge: str | None) -> None:
    """Where the run is, and the commands that show it again as JSON and as a report; the
    judge is named when the run holds several, as the command then needs it."""
    from checkbench.store import RunStore

    with RunStore.existing(out) as store:
        several = len(store.judges()) > 1
    pick = f" --judge-id {shlex.quote(judge)}" if several and judge else ""
    json_command = f"checkbench {command} {shlex.quote(str(out))}{pick} --json"
    console.print(
        f"Run stored in [bold]{escape(str(out))}[/]. JSON: [bold]{escape(json_command)}[/]; "
        + report_hint(out),
        highlight=False,
    )
