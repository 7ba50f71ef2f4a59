"""Meta-evaluation compares one response per (item, model): on a run generated with
`--samples 2` (the embedded model) every such command refuses with one line naming the option,
exit code 2, and leaves the run as it was; the damaged-row message names the sample."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from checkbench import api
from checkbench.store import RunStore
from tests.conftest import ROOT, run_cli
from tests.evaluation.test_samples import SAMPLED, _bench

MINI = ROOT / "examples" / "ifrewardbench-mini.json"


@pytest.fixture(scope="module")
def sampled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A run of 2 items answered twice each by the embedded model and judged by it (log-prob
    mode, for calibrate), a human verdicts file on it, and the judge's id."""
    tmp = tmp_path_factory.mktemp("sampled")
    run = tmp / "run"
    api.generate(_bench(tmp / "b.jsonl", 2), ["local"], run, settings=replace(SAMPLED, samples=2))
    judged = api.judge(run, "local", settings=api.JudgeSettings(mode="logprob")).stage
    with RunStore.existing(run) as store:
        assert len(store.responses()) == 4
        (model,) = store.models()
        (judge,) = store.judges()
        assert sorted({v.sample for v in store.verdicts(judge)}) == [0, 1]
    assert judged.total == 4
    human = tmp / "human.jsonl"
    human.write_text(
        "".join(
            json.dumps({"item_id": f"q{i}", "model": model, "check_id": c, "passed": True}) + "\n"
            for i in range(2)
            for c in ("c1", "c2")
        )
    )
    return run, human, judge


def _dump(run: Path) -> list[str]:
    with sqlite3.connect(run / "run.sqlite") as db:
        return list(db.iterdump())


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("agreement", ["--human", "{human}"]),
        ("agreement", ["--reference-file", "{human}"]),
        ("calibrate", ["--judge-id", "{judge}", "--reference-file", "{human}"]),
        ("scan pc2", ["--aux", "local"]),
    ],
)
def test_meta_evaluation_of_a_sampled_run_is_refused(
    sampled, command: str, args: list[str]
) -> None:
    run, human, judge = sampled
    before = _dump(run)
    filled = [arg.format(human=human, judge=judge) for arg in args]
    result = run_cli(*command.split(), str(run), *filled)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        f"error: {run}: `{command}` compares one response per item and model, and this run has "
        "2 samples of an item (generated with `--samples 2`): use a run generated without "
        "--samples"
    )
    assert _dump(run) == before


def test_meta_into_a_sampled_run_is_refused(sampled) -> None:
    run, _, _ = sampled
    before = _dump(run)
    result = run_cli("ifrewardbench", "run", str(MINI), "--judge", "local", "--out", str(run))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "`ifrewardbench run` compares one response per item and model" in result.stderr
    assert "--samples 2" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert _dump(run) == before


def test_a_damaged_response_row_is_named_with_its_sample(sampled, tmp_path: Path) -> None:
    run, _, _ = sampled
    copy = tmp_path / "run"
    copy.mkdir()
    with sqlite3.connect(run / "run.sqlite") as source, sqlite3.connect(copy / "run.sqlite") as db:
        source.backup(db)
        db.execute("UPDATE responses SET body = 'oops' WHERE item_id = 'q1' AND sample = 1")
    result = run_cli("report", str(copy))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "damaged row q1/local:" in result.stderr
    assert "/sample 1 of table responses (not JSON)" in result.stderr
