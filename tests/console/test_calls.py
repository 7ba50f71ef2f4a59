"""The calls table: the calls of the command that prints it (a second judge over a judged run
made none), with their cost when the run knows the model's price (`--price`, batched calls at
the batch price) and "-" named in a note when not; every name and number whole at 80 and 200
columns."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from checkbench import api
from checkbench.console.calls import NONE_MADE, calls_grid, print_calls, usd
from checkbench.llm.models_file import Price
from checkbench.store import RunStore, UsageRow
from checkbench.testing import OpenAIServer, deterministic
from tests.conftest import run_cli
from tests.llm.test_endpoints import bench

LONG = "local:SmolLM2-135M-Instruct.Q4_1"
JUDGE = "openai:gpt-4o-mini-2024-07-18"
PRICE = Price(input=2.5, output=10.0)


def _rows() -> list[UsageRow]:
    return [
        UsageRow(LONG, "candidate", 591, 0, 1234567, 7654321, 8123.4, 600, 3),
        UsageRow(LONG, "build:instruction", 12, 2, 4000, 900, 31.0, 15),
        # batched: half of its tokens through a Batch API, at half the price
        UsageRow(JUDGE, "judge", 591, 1, 2345678, 345678, 912.5, 592, 0, 1000000, 200000),
    ]


def _lines(width: int, prices: dict[str, Price]) -> list[str]:
    out = io.StringIO()
    print_calls(_rows(), {JUDGE: 24}, prices, Console(file=out, width=width, color_system=None))
    return out.getvalue().splitlines()


def test_the_table_fits_80_and_200_columns_with_every_name_and_number_whole() -> None:
    judge = _rows()[2]
    cost = usd(PRICE.billed(judge))
    assert PRICE.billed(judge) < PRICE.cost(judge.prompt_tokens, judge.completion_tokens)
    for width in (80, 200):
        lines = _lines(width, {JUDGE: PRICE})
        text = "\n".join(lines)
        assert max(len(line) for line in lines) <= width
        for whole in (LONG, JUDGE, "(build:instruction)", "1234567", "7654321", "8123.4", cost):
            assert re.search(rf"(^|\s){re.escape(whole)}(\s|$)", text, re.M), (width, whole)
        assert f"no price for {LONG}" in text  # its rows' cost is "-", and the note says why
    wide = _lines(200, {JUDGE: PRICE})
    (row,) = [line.split() for line in wide if line.startswith(JUDGE)]
    # calls, retries, timed out, failed, in, out, call s, limit, cost: on one line, in order
    assert row[1:] == ["(judge)", "591", "0", "0", "1", "2345678", "345678", "912.5", "24", cost]
    assert [line.split() for line in wide if line.startswith(LONG)][0][-2:] == ["-", "-"]


def test_without_a_price_there_is_no_cost_column_and_without_calls_no_table() -> None:
    assert [usd(7.071), usd(0.0), usd(3.99e-5)] == ["$7.0710", "$0.0000", "$0.000040"]
    assert "cost" not in [c.header for c in calls_grid(_rows(), {}, {}).columns]  # type: ignore[union-attr]
    assert calls_grid([], {}, {JUDGE: PRICE}) is None
    out = io.StringIO()
    print_calls([], {}, {}, Console(file=out, width=80, color_system=None))
    assert out.getvalue().strip() == NONE_MADE


def test_a_second_judge_over_a_judged_run_shows_no_call_of_the_first(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with OpenAIServer(deterministic) as server:
        api.generate(bench(tmp_path / "b.jsonl", 4), [f"openai:cand@{server.base_url}"], run)
        judge = f"openai:judge@{server.base_url}"
        args = ("judge", str(run), "--judge", judge, "--price", f"{judge}=2.5,10")
        first = run_cli(*args)
        again = run_cli(*args, env={"COLUMNS": "80"})
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    with RunStore.existing(run) as store:
        (row,) = [row for row in store.usage() if row.role == "judge"]
    calls = [line.split() for line in first.stdout.splitlines() if line.startswith(judge)]
    cost = usd(PRICE.billed(row))
    assert calls == [[judge, "(judge)", str(row.calls), *calls[0][3:-1], cost]]
    assert "openai:cand" not in first.stdout  # generate's calls are not this command's
    lines = again.stdout.splitlines()
    assert NONE_MADE in lines and judge not in again.stdout
    assert max(len(line) for line in lines) <= 80
