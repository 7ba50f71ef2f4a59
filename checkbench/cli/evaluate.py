"""`checkbench judge`, `leaderboard`, `run` and `import`: judging and scoring a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from checkbench import api
from checkbench.cli import app
from checkbench.cli.options import ApiKeyEnv, BaseUrl, Concurrency, Format, JsonMode, model_options
from checkbench.cli.render import (
    console,
    exit_if_all_failed,
    print_breakdowns,
    print_leaderboard,
    print_stages,
)
from checkbench.fbbench.scoring import FBBenchLeaderboard
from checkbench.generate import GenerationSettings
from checkbench.judges.checklist import JudgeSettings
from checkbench.steps.progress import RichProgress

import_app = typer.Typer(help="Bring existing results into a run.", no_args_is_help=True)
app.add_typer(import_app, name="import")

JudgeModel = Annotated[
    str, typer.Option("--judge", "-j", help="Judge model: local, local:/x.gguf, openai:NAME.")
]
Mode = Annotated[
    str, typer.Option(help="text (one JSON answer per response) or logprob (P(yes) per check).")
]
Language = Annotated[str, typer.Option(help="Judge prompt language: auto (the item's), en or zh.")]
Policy = Annotated[
    str,
    typer.Option(
        help="Unscored items count as 0 ('zero', as published) or are left out ('exclude')."
    ),
]
BREAKDOWN_FACETS = ("task", "feedback_type", "deficiency")


def _judge_settings(mode: str, language: str) -> JudgeSettings:
    if mode not in ("text", "logprob"):
        raise typer.BadParameter("must be 'text' or 'logprob'", param_hint="--mode")
    if language not in ("auto", "en", "zh"):
        raise typer.BadParameter("must be 'auto', 'en' or 'zh'", param_hint="--language")
    return JudgeSettings(mode=mode, language=language)  # type: ignore[arg-type]


def _check_policy(policy: str) -> None:
    if policy not in ("zero", "exclude"):
        raise typer.BadParameter("must be 'zero' or 'exclude'", param_hint="--unscored")


def _show(board: FBBenchLeaderboard, as_json: bool, breakdowns: bool) -> None:
    if as_json:
        print(json.dumps([row.model_dump() for row in board.rows], ensure_ascii=False, indent=2))
        return
    print_leaderboard(board)
    if breakdowns:
        print_breakdowns(board, BREAKDOWN_FACETS)


@app.command()
def judge(
    run_dir: Annotated[Path, typer.Argument(help="Run directory made by `generate`.")],
    judge_model: JudgeModel = "local",
    mode: Mode = "text",
    language: Language = "auto",
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    concurrency: Concurrency = 8,
    json_mode: JsonMode = "schema",
) -> None:
    """Judge every response of a run against its item's checklist."""
    settings = _judge_settings(mode, language)
    options = model_options(base_url, api_key_env, concurrency, json_mode)
    with RichProgress() as progress:
        summary = api.judge(
            run_dir, judge_model, settings=settings, options=options, progress=progress
        )
    print_stages(run_dir, [summary])


@app.command()
def leaderboard(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with verdicts.")],
    judge_id: Annotated[
        str | None, typer.Option("--judge", help="Whose verdicts (default: the only judge).")
    ] = None,
    unscored: Policy = "zero",
    stored_scores: Annotated[
        bool, typer.Option(help="Use imported files' own scores, not the verdicts.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON, one object per model.")
    ] = False,
    breakdowns: Annotated[bool, typer.Option(help="Also print breakdown tables.")] = True,
) -> None:
    """FB-Bench scores per model with 95% bootstrap intervals, n and unscored counts."""
    _check_policy(unscored)
    board = api.leaderboard(
        run_dir,
        judge=judge_id,
        policy=unscored,  # type: ignore[arg-type]
        source="stored" if stored_scores else "verdicts",
    )
    _show(board, as_json, breakdowns)


@app.command()
def run(
    bench: Annotated[Path, typer.Argument(help="Benchmark file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory.")],
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            help="Candidate model: local, local:/x.gguf or openai:NAME; repeat (default: local).",
        ),
    ] = None,
    judge_model: JudgeModel = "local",
    fmt: Format = "auto",
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Override the answer length.")
    ] = None,
    mode: Mode = "text",
    language: Language = "auto",
    unscored: Policy = "zero",
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    concurrency: Concurrency = 8,
    json_mode: JsonMode = "schema",
) -> None:
    """Generate, judge and print the leaderboard with breakdowns, in one go."""
    _check_policy(unscored)
    settings = _judge_settings(mode, language)
    options = model_options(base_url, api_key_env, concurrency, json_mode)
    with RichProgress() as progress:
        summaries, board = api.run(
            bench,
            model or ["local"],
            judge_model,
            out,
            fmt=fmt,
            settings=GenerationSettings(max_tokens=max_tokens),
            judge_settings=settings,
            options=options,
            progress=progress,
            policy=unscored,  # type: ignore[arg-type]
        )
    print_stages(out, summaries, failures=True)
    _show(board, False, True)
    console.print(f"Run stored in [bold]{out}[/]; `checkbench leaderboard {out} --json` for JSON.")
    exit_if_all_failed(summaries)


@import_app.command("fb-bench-judgments")
def import_fbbench(
    directory: Annotated[Path, typer.Argument(help="Folder of published judgment JSONL files.")],
    run_dir: Annotated[Path, typer.Option("--run", help="Run directory to create or extend.")],
) -> None:
    """Load the FB-Bench authors' judgment files (one JSONL per model) so they can be re-scored."""
    counts = api.import_fbbench_judgments(directory, run_dir)
    console.print(
        f"imported {counts['responses']} responses of {counts['items']} items "
        f"({counts['verdicts']} verdicts) into {run_dir}"
    )
