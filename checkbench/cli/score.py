"""`checkbench score`: Conv-to-Bench scores of a run, and agreement with a reference ranking."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from checkbench import api
from checkbench.choices import CheckMode
from checkbench.cli import app
from checkbench.cli.judges import calibrated_judge
from checkbench.console.options import AsJson, CalibrationName, JudgeId, Unscored
from checkbench.console.render import console, estimate_inline, score_cell
from checkbench.stats.notation import RATE_DIGITS

if TYPE_CHECKING:
    from checkbench.convbench.scoring import BenchScores
    from checkbench.stats.estimate import Stat


def _stat(stat: Stat) -> str:
    return estimate_inline(stat.value, stat.low, stat.high, RATE_DIGITS)


def print_scores(scores: BenchScores, reference: Path | None) -> None:
    """Models best first with intervals, then the rank agreement with the reference."""
    checks = "instruction-derived checks" if scores.checks == "instruction" else "all checks"
    table = Table(
        title=f"Scores over {scores.items} instructions, {checks} (judge: {scores.judge})",
        caption="mean over instructions of each one's check mean, 0-100; 95% cluster bootstrap "
        "over instructions; unscored items "
        + ("left out" if scores.policy == "exclude" else "count as 0"),
    )
    table.add_column("#", justify="right")
    table.add_column("model", overflow="fold")
    for column in ("score", "n", "unscored"):
        table.add_column(column, justify="right")
    for rank, row in enumerate(scores.models, start=1):
        table.add_row(
            str(rank),
            row.model,
            score_cell(row.score, row.ci),
            str(row.n),
            f"[red]{row.unscored}[/]" if row.unscored else "0",
        )
    console.print(table)
    if scores.items_without_checks:
        console.print(f"[dim]{scores.items_without_checks} items have no such checks[/]")
    agreement = scores.reference
    if agreement is not None:
        console.print(
            f"Rank agreement with {reference} over {len(agreement.models)} models:\n"
            f"  Spearman rho  {_stat(agreement.spearman)}\n"
            f"  Kendall tau_b {_stat(agreement.kendall_tau_b)}",
            highlight=False,
        )
        for label, names in (
            ("run models not in the reference", agreement.unmatched_run),
            ("reference models not in the run", agreement.unmatched_reference),
        ):
            if names:
                console.print(f"[dim]{label}: {', '.join(names)}[/]", highlight=False)


@app.command()
def score(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with verdicts.")],
    judge_id: JudgeId = None,
    calibration: CalibrationName = None,
    check_mode: Annotated[
        CheckMode,
        typer.Option("--checks", help="Score instruction-derived checks only, or all checks."),
    ] = "all",
    reference: Annotated[
        Path | None,
        typer.Option(help="Reference leaderboard (JSON or CSV of model,score) to correlate with."),
    ] = None,
    unscored_policy: Unscored = "exclude",
    as_json: AsJson = False,
) -> None:
    """Conv-to-Bench scores per model; rank agreement with a reference leaderboard.

    Scores come with 95% cluster-bootstrap intervals over instructions.
    With --reference: Spearman and Kendall correlations with its ranking.
    """
    judge = calibrated_judge(ctx, run_dir, judge_id, calibration)
    scores = api.score(
        run_dir, judge=judge, checks=check_mode, reference=reference, policy=unscored_policy
    )
    if as_json:
        print(scores.model_dump_json(indent=2))
        return
    print_scores(scores, reference)
