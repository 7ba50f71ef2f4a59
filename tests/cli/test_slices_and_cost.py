"""`checkbench run`, `judge` and `leaderboard` with slices and a cost limit, as a user runs them
against a local OpenAI-compatible server: the limit stops the run with exit code 3 and a line
saying what was spent and what is left, a higher limit resumes it; bad slices and unpriced
models are one line and exit code 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.testing import OpenAIServer, default_answer
from tests.conftest import EXAMPLE, run_cli
from tests.support.run_contents import stored


def _specs(server: OpenAIServer) -> tuple[str, str, list[str]]:
    model, judge = f"openai:cand@{server.base_url}", f"openai:judge@{server.base_url}"
    prices = ["--price", f"{model}=1000,1000", "--price", f"{judge}=1000,1000"]
    return model, judge, prices


def test_a_run_stopped_at_its_cost_limit_resumes_with_a_higher_one(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with OpenAIServer(default_answer) as server:
        model, judge, prices = _specs(server)
        args = ["run", str(EXAMPLE), "--out", str(out), "-m", model, "--judge", judge, *prices]
        stopped = run_cli(*args, "--max-cost", "0.5")  # a judgment may cost more
        assert stopped.returncode == 3, stopped.stderr
        line = stopped.stderr.strip().splitlines()[-1]
        assert line.startswith("stopped at the cost limit: spent $0.")
        assert "of $0.5000" in line and "left" in line and "higher --max-cost" in line
        made = len(server.requests)
        assert 0 < made < 16  # 8 answers and 8 judgments in all
        kept = stored(out)
        assert len(kept["responses"]) > 0
        resumed = run_cli(*args, "--max-cost", "100")
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) == 16  # what the first run paid for is not asked again
        board = run_cli("leaderboard", str(out), "--json")
    assert board.returncode == 0 and '"n": 8' in board.stdout


def test_a_judge_slice_is_noted_by_the_leaderboard(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with OpenAIServer(default_answer) as server:
        model, judge, _ = _specs(server)
        assert run_cli("generate", str(EXAMPLE), "--out", str(out), "-m", model).returncode == 0
        judged = run_cli(
            "judge", str(out), "--judge", judge, "--tag", "scenario=RM", "--limit", "3"
        )
        assert judged.returncode == 0, judged.stderr
        board = run_cli("leaderboard", str(out), "--json")
        assert board.returncode == 0
        assert '"n": 3' in board.stdout
        assert (
            f"note: judge {judge} judged a slice of this run (--limit 3 --tag scenario=RM): the "
            "scores cover its 3 of 8 items" in board.stderr
        )
        narrower = run_cli("judge", str(out), "--judge", judge, "--limit", "1")
    assert narrower.returncode == 2
    assert narrower.stderr.count("\n") == 1 and "narrower or different slice" in narrower.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--limit", "-1"], "--limit"),
        (["--sample", "2", "--limit", "2"], "give --limit or --sample, not both"),
        (["--tag", "colour=red"], "no item has the tag facet 'colour'"),
        (["--tag", "scenario"], "expected FACET=VALUE"),
        (["--items", "missing.txt"], "missing.txt: file not found"),
        (["--max-cost", "1"], "has no price"),
        (["--max-cost", "-2"], "--max-cost"),
        (["--max-cost", "1", "--price", "x=1"], "expected MODEL=INPUT,OUTPUT"),
    ],
)
def test_bad_slices_and_limits_are_one_line_and_write_nothing(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    out = tmp_path / "run"
    result = run_cli(
        "run",
        str(EXAMPLE),
        "--out",
        str(out),
        "-m",
        "openai:m@http://127.0.0.1:9/v1",
        *flags,
        "--judge",
        "openai:j@http://127.0.0.1:9/v1",
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr
    assert not out.exists()
