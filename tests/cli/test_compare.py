"""`checkbench compare` and `leaderboard --min-score` as a CI job runs them: the JSON keys,
the gate's exit codes (0 ok, 1 worse or below, 2 bad input in one line), on the authors'
released FB-Bench judgments and on small runs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.compare.published import needs_data, published_run  # noqa: F401
from tests.compare.runs import make_run
from tests.conftest import run_cli

FAST = ("--resamples", "500")


@needs_data
def test_json_of_two_models_of_the_published_run(published_run: Path) -> None:  # noqa: F811
    done = run_cli(
        "compare", str(published_run), "--baseline", "gpt-4o-2024-05-13",
        "--candidate", "Qwen2.5-72B-Instruct", "--top", "3", "--json", *FAST,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for key in ("baseline", "candidate", "judge", "n", "delta", "ci", "p_value", "by_tag"):
        assert key in found
    assert set(found["flips"]) >= {"pass_to_fail", "fail_to_pass", "mcnemar_p"}
    assert found["n"] == 591 and found["judge"] == "gpt-4o-2024-08-06"
    assert found["error_correction"]["n"] + found["response_maintenance"]["n"] == 591
    assert len(found["items"]) == 3 and found["items"][0]["candidate_answer"]


@needs_data
def test_gate_fails_a_worse_candidate_and_passes_a_better_one(published_run: Path) -> None:  # noqa: F811
    def gate(baseline: str, candidate: str, *more: str) -> int:
        args = ("--baseline", baseline, "--candidate", candidate, "--fail-if-worse", *FAST)
        return run_cli("compare", str(published_run), *args, *more).returncode

    assert gate("DeepSeek-V3", "gemma-2-9b-it") == 1
    assert gate("gemma-2-9b-it", "DeepSeek-V3") == 0
    # phi-4 is 0.35 points below gpt-4o-2024-05-13, within chance: only a margin fails it
    assert gate("gpt-4o-2024-05-13", "phi-4") == 0
    assert gate("gpt-4o-2024-05-13", "phi-4", "--margin", "0.1") == 1


@needs_data
def test_every_model_against_a_baseline_and_the_min_score_gate(published_run: Path) -> None:  # noqa: F811
    done = run_cli("compare", str(published_run), "--baseline", "phi-4", "--json", *FAST)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 5 and {row["baseline"] for row in rows} == {"phi-4"}
    table = run_cli("compare", str(published_run), "--baseline", "phi-4", *FAST)
    assert table.returncode == 0 and "DeepSeek-V3" in table.stdout
    below = run_cli("leaderboard", str(published_run), "--no-breakdowns", "--min-score", "45")
    assert below.returncode == 1
    assert below.stderr.strip() == "below --min-score 45: Meta-Llama-3.1-8B-Instruct (44.69)"
    passes = run_cli("leaderboard", str(published_run), "--no-breakdowns", "--min-score", "40")
    assert passes.returncode == 0


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a", {"a": [(True, False)], "b": [(True, True)]})
    other_judge = make_run(tmp_path / "b", {"c": [(True, True)]}, judge="judge-b")
    elsewhere = make_run(tmp_path / "c", {"d": [(True, True)]}, prefix="x")
    cases = {
        ("compare", str(first), "--baseline", "a", "--candidate", "z"): "no model 'z'",
        ("compare", str(first), str(elsewhere), "--baseline", "a"): "no shared items",
        ("compare", str(first), str(other_judge), "--baseline", "a"): "different judges",
        ("compare", str(tmp_path / "none"), "--baseline", "a"): "not a checkbench run",
    }
    for args, message in cases.items():
        done = run_cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith("error: ") and message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and not done.stdout
    allowed = run_cli(
        "compare", str(first), str(other_judge), "--baseline", "a", "--allow-different-judges"
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "different judges: judge-a / judge-b" in allowed.stdout
    # model outputs are printed as text, never as markup
    shown = run_cli("compare", str(first), "--baseline", "a", "--candidate", "b", *FAST)
    assert "<b>a</b> 0" in shown.stdout
