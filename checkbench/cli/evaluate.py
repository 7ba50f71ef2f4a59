"""`checkbench judge`, `leaderboard` and `run`: judging and scoring a run."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from checkbench import api, registry
from checkbench.choices import ScoringProtocol
from checkbench.cli import app
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
    calibrated_judge,
    with_model_options,
)
from checkbench.console.render import (
    console,
    exit_if_all_failed,
    print_tally,
    report_hint,
)
from checkbench.distributed import executor_named
from checkbench.fbbench.cli import show_leaderboard
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
    with RichProgress() as progress:
        result = api.judge(
            run_dir,
            judge_model,
            settings=api.JudgeSettings(mode=judge_mode, language=language),
            options=options,
            progress=progress,
            executor=executor_named(executor, ray_address),
        )
    print_tally([result.stage], result.tally)
    command = registry.run_scorers()[result.protocol].command
    print_next_steps(run_dir, command, result.judge, result.tally.judges)
    exit_if_all_failed([result.stage])


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
        settings=api.ScoringSettings(
            policy=unscored_policy, source="stored" if stored_scores else "verdicts"
        ),
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
        )
    print_tally(result.stages, result.tally, failures=True)
    scorer = registry.run_scorers()[result.protocol]
    scorer.show(result.scores)
    print_next_steps(out, scorer.command, result.judge, result.tally.judges)
    exit_if_all_failed(result.stages)


def print_next_steps(out: Path, command: str, judge: str | None, judges: list[str]) -> None:
    """Where the run is, and the commands that show it again as JSON and as a report; the
    judge is named when the run holds several (`judges`), as the command then needs it."""
    pick = f" --judge-id {shlex.quote(judge)}" if len(judges) > 1 and judge else ""
    json_command = f"checkbench {command} {shlex.quote(str(out))}{pick} --json"
    console.print(
        f"Run stored in [bold]{escape(str(out))}[/]. JSON: [bold]{escape(json_command)}[/]; "
        + report_hint(out),
        highlight=False,
    )
