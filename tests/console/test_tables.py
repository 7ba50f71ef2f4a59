"""The one table renderer: every name whole, every cell shown, no line wider than the terminal,
at 80, 120 and 200 columns with 2, 6 and 27 models (the 6 FB-Bench published judgment files,
and 27 made from them)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from checkbench.console.tables import (
    Cell,
    Column,
    Grid,
    csv_text,
    layout,
    markdown,
    print_grid,
    tokens,
    transposed,
    wrap,
)
from checkbench.fbbench.cli import breakdown_grids, leaderboard_grid
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.fbbench.scoring import FBBenchLeaderboard, fbbench_leaderboard
from tests.conftest import run_cli
from tests.fbbench.test_published import JUDGMENTS, needs_data

WIDTHS = (80, 120, 200)
SCORE = re.compile(r"(?<![\w.\-])\d+\.\d\d(?![\w.])")
"""A score as a cell prints it (two decimals), not a version inside a model's name."""
LONG = "local:SmolLM2-135M-Instruct.Q4_1#calibrated-against-gpt-4o-2024-08-06"


def _names(count: int) -> list[str]:
    return [
        f"vendor-{k}/Model-{k}-{7 * k}B-Instruct-2024-0{k % 9 + 1}" for k in range(count - 1)
    ] + [LONG]


def _matrix(models: list[str], values: int = 9) -> Grid:
    """Models x facet values, one score per cell with its count."""
    columns = [Column("model", numeric=False)]
    columns += [Column(f"Facet Value Number {v} n={v + 10}") for v in range(values)]
    rows = [
        [Cell(model), *(Cell(f"{(m * values + v) % 100 + 0.25:.2f}") for v in range(values))]
        for m, model in enumerate(models)
    ]
    return Grid("score by facet", columns, rows, detail_below=False, transposable=True)


def _render(grid: Grid, width: int) -> list[str]:
    out = io.StringIO()
    print_grid(grid, Console(file=out, width=width, color_system=None))
    return out.getvalue().splitlines()


def _check(grid: Grid, lines: list[str], width: int) -> None:
    """No line over `width`; each row's label whole on a line; every score cell printed."""
    assert max(len(line) for line in lines) <= width
    for row in grid.rows:
        assert any(row[grid.label].value in line for line in lines), row[grid.label].value
    expected = sorted(c.value for row in grid.rows for c in row if SCORE.fullmatch(c.value))
    shown = sorted(SCORE.findall("\n".join(lines)))
    assert shown == expected


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("count", [2, 6, 27])
def test_a_models_by_values_grid_fits_with_every_name_and_cell(width: int, count: int) -> None:
    grid = _matrix(_names(count))
    _check(grid, _render(grid, width), width)


def test_the_layout_changes_with_the_width() -> None:
    grid = _matrix(_names(2), values=3)
    wide = _render(grid, 200)
    assert wide[3].startswith("model ")  # models as rows, values as columns (3 header lines)
    assert wide[5].startswith(_names(2)[0])
    grid6 = _matrix(_names(6), values=12)
    narrow = _render(grid6, 80)
    assert sum("score by facet (" in line for line in narrow) > 1  # blocks of columns
    two = _matrix(["a", "b"], values=30)
    flipped = _render(two, 80)
    assert any(line.startswith("Facet Value Number 29 n=39") for line in flipped)  # transposed


def test_headers_wrap_between_tokens_only() -> None:
    assert wrap("Qwen2.5-72B-Instruct", 12) == ["Qwen2.5-72B-", "Instruct"]
    assert wrap("local:SmolLM2-135M-Instruct", 5) == ["local:", "SmolLM2-", "135M-", "Instruct"]
    assert wrap("Text Error Correction n=45", 10) == ["Text Error", "Correction", "n=45"]
    assert "".join(tokens("rank ref -> judge")) == "rank ref -> judge"  # nothing dropped


def test_transposed_swaps_rows_and_columns() -> None:
    grid = _matrix(["a", "b"], values=2)
    flipped = transposed(grid)
    assert [c.header for c in flipped.columns] == ["model", "a", "b"]
    assert [r[0].value for r in flipped.rows] == [c.header for c in grid.columns[1:]]
    assert flipped.rows[1][2] == grid.rows[1][2]


def test_markdown_and_csv_hold_every_cell_whatever_the_width() -> None:
    grid = _matrix(_names(27))
    rows = list(csv.DictReader(io.StringIO(csv_text([grid]))))
    assert len(rows) == 27 * 9
    assert {r["row"] for r in rows} == set(_names(27))
    text = markdown([grid])
    assert text.startswith("### score by facet\n\n| model |")
    assert all(f"| {name} |" in text for name in _names(27))


def test_a_label_wider_than_the_terminal_wraps_between_tokens() -> None:
    grid = Grid(
        "t", [Column("model", numeric=False), Column("score")], [[Cell(LONG), Cell("1.00")]]
    )
    lines = [line.plain for line in layout(grid, 40)]
    assert max(len(line) for line in lines) <= 40
    assert "".join(lines).replace(" ", "").count("1.00") == 1
    assert any(line.startswith("local:SmolLM2-135M-") for line in lines)


@pytest.fixture(scope="module")
def board6() -> FBBenchLeaderboard:
    return fbbench_leaderboard(*load_fbbench_judgment_dir(JUDGMENTS), b=50)


def _scaled(board: FBBenchLeaderboard, count: int) -> FBBenchLeaderboard:
    """`count` models from the 6: each row and its breakdowns again under another name."""
    names = _names(count)
    rows = [
        board.rows[k % len(board.rows)].model_copy(update={"model": name})
        for k, name in enumerate(names)
    ]
    breakdowns = {
        name: board.breakdowns[board.rows[k % len(board.rows)].model]
        for k, name in enumerate(names)
    }
    return board.model_copy(update={"rows": rows, "breakdowns": breakdowns})


@needs_data
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("count", [2, 6, 27])
def test_the_fbbench_leaderboard_fits_with_every_name_and_breakdown_cell(
    board6: FBBenchLeaderboard, width: int, count: int
) -> None:
    board = board6 if count == 6 else _scaled(board6, count)
    grids = [
        leaderboard_grid(board),
        *breakdown_grids(board, ("task", "feedback_type", "deficiency")),
    ]
    for grid in grids:
        _check(grid, _render(grid, width), width)
    assert len(grids[0].rows) == count


@needs_data
def test_format_json_is_the_json_of_json_and_csv_has_every_breakdown_cell(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert run_cli("fbbench", "import", str(JUDGMENTS), "-o", str(run_dir)).returncode == 0
    by_flag = run_cli("leaderboard", str(run_dir), "--json")
    by_format = run_cli("leaderboard", str(run_dir), "--format", "json")
    assert by_flag.returncode == 0, by_flag.stderr
    assert json.loads(by_flag.stdout) == json.loads(by_format.stdout)
    table = run_cli("leaderboard", str(run_dir), env={"COLUMNS": "80"})
    assert max(len(line) for line in table.stdout.splitlines()) <= 80
    rows = list(
        csv.DictReader(io.StringIO(run_cli("leaderboard", str(run_dir), "--format", "csv").stdout))
    )
    board = json.loads(by_flag.stdout)
    coding = board["breakdowns"]["DeepSeek-V3"]["task"]["all"]["Coding"]
    assert any(
        r["row"] == "DeepSeek-V3"
        and r["column"].startswith("Coding")
        and r["value"] == f"{coding['score']:.2f}"
        for r in rows
    )
    assert "--json" not in run_cli("leaderboard", "--help").stdout


def test_each_block_of_columns_carries_the_legend_of_its_shortened_names() -> None:
    names = [f"Meta-Llama-3.1-{k}B-Instruct-with-a-long-name-{k}" for k in range(12)]
    rows = [[Cell(f"node {r}")] + [Cell(f"{k * 3.1:.2f}") for k in range(12)] for r in range(2)]
    columns = [Column("node", numeric=False)] + [Column(n, name=True) for n in names]
    grid = Grid("Scores", columns, rows)
    lines = [line.plain for line in layout(grid, 80)]
    assert max(len(line) for line in lines) <= 80
    titles = [i for i, line in enumerate(lines) if line.startswith("Scores (")]
    assert len(titles) > 1  # the columns did not fit in one block
    for start, end in zip(titles, [*titles[1:], len(lines)], strict=True):
        block = lines[start:end]
        heads = block[1].split()[1:]  # the shortened names over this block's columns
        keys = dict(line.split(" = ") for line in block if " = " in line)
        assert sorted(keys) == sorted(heads) and all(keys[h] in names for h in heads)
    assert sum(" = " in line for line in lines) == len(names)  # each name given once
