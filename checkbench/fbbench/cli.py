"""`checkbench fbbench`: FB-Bench's commands (importing the authors' published judgments, the
difficulty post-filter) and the terminal rendering of its leaderboard."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from checkbench.console import Group
from checkbench.console.options import (
    AUTO_FORMAT,
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    Format,
    JudgeModel,
    with_model_options,
    with_slice_and_models,
)
from checkbench.console.output import Printout
from checkbench.console.render import console, exit_if_all_failed
from checkbench.console.tables import (
    Cell,
    Column,
    Grid,
    cell,
    estimate,
    print_grid,
)
from checkbench.llm import ModelOptions
from checkbench.stats.estimate import degenerate_why
from checkbench.stats.notation import UNDEFINED, value_text
from checkbench.steps.progress import RichProgress
from checkbench.steps.slices import WHOLE_SLICE, Slice

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
@with_slice_and_models
def import_judgments(
    directory: Annotated[Path, typer.Argument(help="Folder of published judgment JSONL files.")],
    run_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Run directory to create or extend.")
    ],
    slice_: Slice = WHOLE_SLICE,
) -> None:
    """Load the FB-Bench authors' judgment files (one JSONL per model) so they can be re-scored
    (a slice of them: its items, its models)."""
    from checkbench.fbbench.api import import_fbbench_judgments

    summary = import_fbbench_judgments(directory, run_dir, slice_=slice_)
    console.print(
        f"imported {summary.records} responses of {summary.samples} items ({summary.models} "
        f"models, {summary.files} files) into {run_dir}",
        markup=False,
    )
    for line in summary.lines()[1:]:
        console.print(line, markup=False)
    if not slice_.whole:
        console.print(
            f"sliced ({slice_.spec()}): only its items and models were kept", markup=False
        )


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


def leaderboard_grid(board: FBBenchLeaderboard) -> Grid:
    """The FB-Bench leaderboard: headline scores with 95% intervals, n and unscored counts."""
    columns = [Column("#"), Column("model", numeric=False)]
    columns += [Column(name) for name in ("EC", "RM", "overall", "n", "unscored")]
    rows = [
        [
            cell(rank),
            cell(row.model),
            _score(row.error_correction, row.error_correction_ci, row.error_correction_n),
            _score(
                row.response_maintenance, row.response_maintenance_ci, row.response_maintenance_n
            ),
            _score(row.overall, row.overall_ci, row.n),
            cell(row.n),
            cell(row.unscored, style="red" if row.unscored else ""),
        ]
        for rank, row in enumerate(board.rows, start=1)
    ]
    return Grid(
        title=f"FB-Bench leaderboard, 95% bootstrap intervals (judge: {board.judge})",
        columns=columns,
        rows=rows,
        notes=_leaderboard_notes(board),
        label=1,
    )


def _score(value: float | None, ci: tuple[float, float] | None, n: int) -> Cell:
    low, high = ci or (None, None)
    why = degenerate_why(low, high, n) if value is not None else None
    return estimate(value, low, high, why=why)


def print_leaderboard(board: FBBenchLeaderboard) -> None:
    """The FB-Bench leaderboard as a table fitted to the terminal."""
    print_grid(leaderboard_grid(board), console)


def _shown_slices(board: FBBenchLeaderboard, facet: str) -> list[str]:
    """The slices of a facet to print: "all" only where it is not just EC or RM again."""
    from checkbench.fbbench.means import EC, RM

    present = {name for cells in board.breakdowns.values() for name in cells.get(facet, {})}
    scenarios = [name for name in (EC, RM) if name in present]
    return scenarios + (["all"] if "all" in present and len(scenarios) != 1 else [])


def breakdown_grids(board: FBBenchLeaderboard, facets: tuple[str, ...]) -> list[Grid]:
    """One grid per (facet, slice): models as rows, facet values as columns (transposed or
    in blocks where they do not fit); each cell is the mean of the task means, as FB-Bench
    reports, with its number of items, given once in the header when every model has the same."""
    models = [row.model for row in board.rows]
    grids = []
    for facet in facets:
        for name in _shown_slices(board, facet):
            slices = [board.breakdowns[model].get(facet, {}).get(name, {}) for model in models]
            values = sorted({value for cells in slices for value in cells})
            counts = {
                value: {cells[value].n for cells in slices if value in cells} for value in values
            }
            columns = [Column("model", numeric=False)]
            columns += [Column(_header(value, counts[value])) for value in values]
            rows = [
                [
                    cell(model),
                    *(
                        cell(value_text(cells[value].score), _count(cells[value].n, counts[value]))
                        if value in cells
                        else cell(UNDEFINED)
                        for value in values
                    ),
                ]
                for model, cells in zip(models, slices, strict=True)
            ]
            label = "all items" if name == "all" else name
            grids.append(
                Grid(
                    title=f"{label}: score by {facet.replace('_', ' ')} (mean of task means)",
                    columns=columns,
                    rows=rows,
                    detail_below=False,
                    transposable=True,
                )
            )
    return grids


def _header(value: str, counts: set[int]) -> str:
    """A facet value, with its number of items when every model has the same."""
    return f"{value} n={next(iter(counts))}" if len(counts) == 1 else value


def _count(n: int, counts: set[int]) -> str:
    """A cell's number of items, unless the header gives it."""
    return "" if len(counts) == 1 else f"n={n}"


def print_breakdowns(board: FBBenchLeaderboard, facets: tuple[str, ...]) -> None:
    """The breakdown grids as tables fitted to the terminal."""
    for grid in breakdown_grids(board, facets):
        print_grid(grid, console)


def show_leaderboard(
    board: FBBenchLeaderboard, printout: Printout, breakdowns: bool = True
) -> None:
    """The leaderboard in the printout's format: the headline, then (with `breakdowns`) one
    table per facet and slice; as JSON, the whole leaderboard."""
    printout.grids(leaderboard_grid(board))
    if breakdowns:
        printout.grids(*breakdown_grids(board, TABLE_FACETS))
    printout.finish(lambda: board.model_dump(mode="json"))


def show_scored(board: FBBenchLeaderboard) -> None:
    """How `run` shows the scores of an FB-Bench run."""
    console.print("Scored by the FB-Bench protocol.")
    show_leaderboard(board, Printout("table", console))
