"""Intervals that mean something, in one notation: no zero-width interval for want of items,
one-item strata resampled across each other, and the same text wherever a statistic shows."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from checkbench.console import render
from checkbench.fbbench import cli as fbbench_cli
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.fbbench.scoring import fbbench_leaderboard
from checkbench.stats import macro_mean_ci, mean_ci
from checkbench.stats.agreement import agreement
from checkbench.stats.notation import estimate_text
from tests.conftest import ROOT

VALUES = [0.0, 0.25, 1.0, 0.5, 1.0, 0.0, 0.75, 1.0]


def test_one_item_strata_resample_across_each_other() -> None:
    """Every stratum of one item (the shipped examples): the plain bootstrap over items."""
    plain = mean_ci(VALUES)
    macro = macro_mean_ci([[v] for v in VALUES])
    assert (macro.value, macro.low, macro.high, macro.n) == (
        plain.value,
        plain.low,
        plain.high,
        plain.n,
    )
    assert macro.low < macro.value < macro.high


def test_larger_strata_still_resample_within() -> None:
    # Draws are (c + 0.5) / 2 with c in {0, 0.5, 1}: the constant stratum adds no width.
    both = macro_mean_ci([[0.0, 1.0], [0.5, 0.5]])
    assert (both.value, both.low, both.high) == (0.5, 0.25, 0.75)
    # A lone one-item stratum keeps its value in every draw: (c + 1) / 2.
    lone = macro_mean_ci([[0.0, 1.0], [1.0]])
    assert (lone.value, lone.low, lone.high) == (0.75, 0.5, 1.0)
    # Two one-item strata beside it draw their sum from {0, 1, 2}: (c + s) / 3.
    pooled = macro_mean_ci([[0.0, 1.0], [1.0], [0.0]])
    assert (pooled.low, pooled.high) == (0.0, 1.0)


@pytest.mark.parametrize("groups", [[[0.7]], [[], [0.7]]])
def test_one_item_has_no_interval(groups: list[list[float]]) -> None:
    for estimate in (mean_ci([0.7]), macro_mean_ci(groups)):
        assert estimate.value == 0.7 and estimate.n == 1 and not estimate.has_interval
    assert agreement([1, 0], [1, 1], ["one", "one"]).agreement.low is None  # one cluster


def test_notation() -> None:
    assert estimate_text(57.5, 52.14, 63.0) == "57.50 [52.1, 63.0]"
    assert estimate_text(0.8421, 0.711, 0.95, 3) == "0.842 [0.71, 0.95]"
    assert estimate_text(3.2, -1.5, 7.9, signed=True) == "+3.20 [-1.5, +7.9]"
    assert estimate_text(57.5, None, None) == "57.50 [n too small]"
    assert estimate_text(float("nan"), 0.1, 0.2) == estimate_text(None, None, None) == "-"


def _printed(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(renderable)
    return out.getvalue()


def test_the_example_leaderboard_has_real_intervals_and_says_why() -> None:
    board = fbbench_leaderboard(
        *load_fbbench_judgment_dir(ROOT / "examples" / "fb-bench-judgments-mini")
    )
    row = next(row for row in board.rows if row.model == "model-b")
    assert row.overall_ci is not None and row.overall_ci[0] < row.overall < row.overall_ci[1]
    cell = board.breakdowns["model-b"]["task"]["EC"]["Coding"]
    assert cell.n == 1 and cell.ci is None
    dumped = json.dumps(board.model_dump(mode="json"), allow_nan=False)
    assert '"ci": null' in dumped
    console, fbbench_cli.console = fbbench_cli.console, Console(file=io.StringIO(), width=80)
    try:
        fbbench_cli.print_leaderboard(board)
        shown = fbbench_cli.console.file.getvalue()
    finally:
        fbbench_cli.console = console
    assert f"{row.overall:.2f}" in shown
    assert f"[{row.overall_ci[0]:.1f}, {row.overall_ci[1]:.1f}]" in shown
    assert "4 of 4 (scenario, task) groups hold one item" in " ".join(shown.split())


def test_a_cell_without_interval_says_so_in_a_table() -> None:
    assert "[n too small]" in _printed(render.score_cell(100.0, None))
    assert _printed(render.score_cell(None, None)).strip() == "-"
