"""`checkbench fbbench`: FB-Bench's commands (importing the authors' published judgments, the
difficulty post-filter) and the terminal rendering of its leaderboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from checkbench.console import Group
from checkbench.console.options import (
    AUTO_FORMAT,
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    Format,
    JudgeModel,
    with_model_options,
)
from checkbench.console.render import console, exit_if_all_failed, score_cell
from checkbench.llm import ModelOptions
from checkbench.stats.notation import UNDEFINED, value_text
from checkbench.steps.progress import RichProgress

if TYPE_CHECKING:
    from checkbench.fbbench.difficulty import DifficultyReport
    from checkbench.fbbench.scoring import FBBenchLeaderboard

app = typer.Typer(
    cls=Group,
    help="FB-Bench: import the authors' published judgments, drop the items every weak model aces.",
    no_args_is_help=True,
)

TABLE_FACETS = ("task", "feedback_type", "deficiency")
"""Facets printed as tables; subtasks (24 values) are in --json and the report."""


@app.command("import")
def import_judgments(
    directory: Annotated[Path, typer.Argument(help="Folder of published judgment JSONL files.")],
    run_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Run directory to create or extend.")
    ],
) -> None:
    """Load the FB-Bench authors' judgment files (one JSONL per model) so they can be re-scored."""
    from checkbench.fbbench.api import import_fbbench_judgments

    summary = import_fbbench_judgments(directory, run_dir)
    console.print(
        f"imported {summary.records} responses of {summary.samples} items ({summary.models} "
        f"models, {summary.files} files) into {run_dir}",
        markup=False,
    )
    for line in summary.lines()[1:]:
        console.print(line, markup=False)


@app.command("filter")
@with_model_options
def filter_easy(
    bench: Annotated[Path, typer.Argument(help="Benchmark file to filter.")],
    weak_model: Annotated[
        list[str], typer.Option("--weak-model", "-w", help="A weak model; repeat for several.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Filtered benchmark to write.")],
    judge_model: JudgeModel = DEFAULT_MODEL,
    run_dir: Annotated[
        Path | None,
        typer.Option("--run", help="Keep the weak models' run here (resumable); default: temp."),
    ] = None,
    format_: Format = AUTO_FORMAT,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Override the weak models' answer length.")
    ] = None,
    options: ModelOptions = DEFAULT_OPTIONS,
) -> None:
    """Drop the items that every weak model answers with full score (FB-Bench post-filter)."""
    from checkbench.fbbench.api import filter_by_difficulty
    from checkbench.generation.requests import GenerationSettings

    with RichProgress() as progress:
        report = filter_by_difficulty(
            bench,
            weak_model,
            judge_model,
            out,
            run_dir=run_dir,
            fmt=format_.value,
            settings=GenerationSettings(max_tokens=max_tokens),
            options=options,
            progress=progress,
        )
    print_difficulty(report, out)
    exit_if_all_failed(report.stages)


def print_difficulty(report: DifficultyReport, out: Path) -> None:
    """What the post-filter kept and dropped."""
    aced = ", ".join(f"{model}: {n}" for model, n in report.full_scores.items())
    console.print(
        f"{report.seen} items: kept {report.kept} ([yellow]{report.undecided} undecided[/]: some "
        f"answer unscored), dropped {report.dropped} that every weak model aced "
        f"(judge {report.judge}; full scores per model: {aced}); written to [bold]{out}[/]",
        highlight=False,
    )


def _one_item_groups(board: FBBenchLeaderboard) -> tuple[int, int]:
    """(groups of one item, groups) among the (scenario, task) groups of the model with the
    most one-item groups."""
    from checkbench.fbbench.means import EC, RM

    counts = []
    for cells in board.breakdowns.values():
        tasks = cells.get("task", {})
        sizes = [cell.n for name in (EC, RM) for cell in tasks.get(name, {}).values()]
        counts.append((sum(size == 1 for size in sizes), len(sizes)))
    return max(counts, default=(0, 0))


def _leaderboard_notes(board: FBBenchLeaderboard) -> list[str]:
    """What the scores count, one line each: the scale, unscored items, one-item groups, checks
    without a judgment entry, and whether imported files' stored scores agree with the verdicts."""
    notes = [
        "scores 0-100; EC = error correction, RM = response maintenance; unscored items "
        + ("count as 0" if board.policy == "zero" else "are left out")
    ]
    single, groups = _one_item_groups(board)
    if single:
        notes.append(
            f"{single} of {groups} (scenario, task) groups hold one item: the intervals "
            "resample those items across their groups"
        )
    unjudged = sum(row.unjudged_checks for row in board.rows)
    if unjudged:
        checks = f"{unjudged} check{'' if unjudged == 1 else 's'} without a judgment entry"
        notes.append(f"{checks} counted as not met (as published)")
    if board.score_mismatches is not None:
        notes.append(f"stored scores differ from the verdicts' on {board.score_mismatches} records")
    return notes


def print_leaderboard(board: FBBenchLeaderboard) -> None:
    """The FB-Bench leaderboard: headline scores with 95% intervals, n and unscored counts."""
    title = f"FB-Bench leaderboard, 95% bootstrap intervals (judge: {board.judge})"
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("#", justify="right")
    table.add_column("model", overflow="fold")
    for column in ("EC", "RM", "overall"):
        table.add_column(column, justify="right", no_wrap=True)
    for column in ("n", "unscored"):
        table.add_column(column, justify="right")
    for rank, row in enumerate(board.rows, start=1):
        table.add_row(
            str(rank),
            row.model,
            score_cell(row.error_correction, row.error_correction_ci),
            score_cell(row.response_maintenance, row.response_maintenance_ci),
            score_cell(row.overall, row.overall_ci),
            str(row.n),
            f"[red]{row.unscored}[/]" if row.unscored else "0",
        )
    console.print(table)
    for note in _leaderboard_notes(board):
        console.print(f"[dim]{escape(note)}[/]", highlight=False)


def _shown_slices(board: FBBenchLeaderboard, facet: str) -> list[str]:
    """The slices of a facet to print: "all" only where it is not just EC or RM again."""
    from checkbench.fbbench.means import EC, RM

    present = {name for cells in board.breakdowns.values() for name in cells.get(facet, {})}
    scenarios = [name for name in (EC, RM) if name in present]
    return scenarios + (["all"] if "all" in present and len(scenarios) != 1 else [])


def print_breakdowns(board: FBBenchLeaderboard, facets: tuple[str, ...]) -> None:
    """One table per (facet, slice): rows are facet values, columns are models; each cell is
    the mean of the task means, as FB-Bench reports, with its number of items."""
    models = [row.model for row in board.rows]
    for facet in facets:
        for name in _shown_slices(board, facet):
            columns = [board.breakdowns[model].get(facet, {}).get(name, {}) for model in models]
            values = sorted({value for column in columns for value in column})
            label = "all items" if name == "all" else name
            table = Table(title=f"{label}: score by {facet.replace('_', ' ')} (mean of task means)")
            table.add_column(facet, no_wrap=True)
            for model in models:
                table.add_column(model, justify="right")
            for value in values:
                row = [
                    f"{value_text(cell.score)} [dim]n={cell.n}[/]" if cell else UNDEFINED
                    for cell in (column.get(value) for column in columns)
                ]
                table.add_row(value, *row)
            console.print(table)


def show_leaderboard(board: FBBenchLeaderboard, as_json: bool, breakdowns: bool) -> None:
    """The leaderboard as JSON, or as tables: the headline, then (with `breakdowns`) one
    table per facet and slice."""
    if as_json:
        print(json.dumps(board.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    print_leaderboard(board)
    if breakdowns:
        print_breakdowns(board, TABLE_FACETS)


def show_scored(board: FBBenchLeaderboard) -> None:
    """How `run` shows the scores of an FB-Bench run."""
    console.print("Scored by the FB-Bench protocol.")
    show_leaderboard(board, False, True)
