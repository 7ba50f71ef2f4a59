"""`checkbench audit` as a user runs it: tables, JSON, the refined benchmark, and bad input as
one line with exit code 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.scoring.refined import REFINED_CHECKLISTS
from checkbench.store import RunStore
from tests.audit.runs import ability_rule, build_run, plain_items
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("cli") / "run", plain_items(4), 6, ability_rule)


def test_tables_then_json(run: Path) -> None:
    shown = run_cli("audit", str(run))
    assert shown.returncode == 0, shown.stderr
    assert "6 models, 4 items, 12 checks" in shown.stdout
    assert "separability" in shown.stdout and "rank stability" in shown.stdout
    assert "cannot audit: one judge: no judge disagreement" in shown.stdout
    data = json.loads(run_cli("audit", str(run), "--json").stdout)
    assert data["checks"] == 12 and len(data["check_audits"]) == 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing-dir"], "not a checkbench run directory"),
        (["RUN", "--judge-id", "nobody"], "no verdicts by judge 'nobody'"),
        (["RUN", "--drop", "bogus"], "--drop"),
        (["RUN", "--similarity", "2"], "--similarity"),
        (["RUN", "--write-refined", "OUTDIR"], "is a directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    run: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    args = [str(run) if a == "RUN" else str(tmp_path) if a == "OUTDIR" else a for a in args]
    found = run_cli("audit", *args, cwd=tmp_path)
    assert found.returncode == 2
    assert found.stderr.startswith("error: ") and message in found.stderr
    assert len(found.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
    with RunStore.existing(run) as store:
        assert store.records(REFINED_CHECKLISTS) == {}


def _with_a_check_every_model_fails(
    m: int, item_id: str, check_id: str, sample: int, judge: str
) -> bool:
    return (
        False
        if (item_id, check_id) == ("i0", "c2")
        else ability_rule(m, item_id, check_id, sample, judge)
    )


def test_write_refined_then_leaderboard_with_the_refined_checklists(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", plain_items(4), 6, _with_a_check_every_model_fails)
    out = tmp_path / "refined.jsonl"
    written = run_cli("audit", str(run), "--write-refined", str(out), "--drop", "all-fail")
    assert written.returncode == 0, written.stderr
    assert len(out.read_text().splitlines()) == 4
    refined = json.loads(
        run_cli("leaderboard", str(run), "--checklist", "refined", "--json").stdout
    )
    full = json.loads(run_cli("leaderboard", str(run), "--json").stdout)
    assert len(refined["rows"]) == 6
    assert refined["rows"] != full["rows"]
