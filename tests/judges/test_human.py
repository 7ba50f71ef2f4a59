"""A person's labels in the run (`view --annotate`, judge human:NAME) used directly: as the
human verdicts of `agreement --human human:NAME`, as the reference of `agreement
--reference-judge` and `calibrate --reference-judge`; commands that pick judges by themselves
leave people out."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.store import RunStore
from checkbench.store.labels import new_label, put_label
from tests.conftest import run_cli
from tests.judges.test_judges_cli import _agreement_run, _calibration_run, _json
from tests.judges.test_reference import FLIPS, ITEMS, RESPONSES, _verdicts


def _label_like(run_dir: Path, judge: str, annotator: str = "alice") -> int:
    """Give `annotator` the labels `judge` gave as verdicts; return how many."""
    with RunStore.existing(run_dir, writer=True) as store:
        verdicts = store.verdicts(judge)
        for v in verdicts:
            fields = v.model_dump(include={"item_id", "model", "sample", "check_id", "passed"})
            put_label(store, new_label(annotator, **fields, note="as " + judge))
    return len(verdicts)


def test_agreement_reads_a_persons_labels(tmp_path: Path) -> None:
    run_dir = _agreement_run(tmp_path)
    assert _label_like(run_dir, "ref") == 24
    by_file = _json("agreement", str(run_dir), "--human", "human:alice")
    assert [r["judge"] for r in by_file] == ["cheap", "ref"]  # not alice against herself
    assert by_file[0]["n"] == 24 and by_file[0]["agreement"]["value"] == pytest.approx(20 / 24)
    assert by_file[1]["agreement"]["value"] == 1.0
    as_reference = _json("agreement", str(run_dir), "--reference-judge", "human:alice")
    assert [r["judge"] for r in as_reference] == ["cheap", "ref"]
    cheap = as_reference[0]
    assert cheap["reference"] == "human:alice"
    assert cheap["agreement"]["agreement"]["value"] == pytest.approx(20 / 24)
    scores = {m["model"]: m["judge"]["value"] for m in cheap["ranking"]["models"]}
    assert scores == pytest.approx({"A": 87.5, "B": 62.5, "C": 25})


def test_calibrate_takes_a_persons_labels_as_reference(tmp_path: Path) -> None:
    run_dir, _ = _calibration_run(tmp_path)
    _label_like(run_dir, "ref")
    args = ("calibrate", str(run_dir), "--judge-id", "cheap", "--method", "isotonic")
    by_person = _json(*args, "--reference-judge", "human:alice", "--name", "by-alice")
    by_judge = _json(*args, "--reference-judge", "ref", "--name", "by-ref")
    assert by_person["reference"] == "human:alice"
    for side in ("before", "after"):
        assert by_person[side]["agreement"]["agreement"] == by_judge[side]["agreement"]["agreement"]
    assert by_person["after"]["agreement"]["agreement"]["value"] == 1.0


def test_commands_that_pick_the_judge_leave_people_out(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with RunStore(run_dir) as store:  # one model judge, "cheap"
        store.add_items(ITEMS)
        for response in RESPONSES:
            store.put_response(response)
        store.put_verdicts(_verdicts("cheap", FLIPS))
    _label_like(run_dir, "cheap")
    board = _json("convbench", "score", str(run_dir))
    assert board["judge"] == "cheap"
    named = _json("convbench", "score", str(run_dir), "--judge-id", "human:alice")
    assert named["judge"] == "human:alice"


def test_labels_of_nobody_are_one_line(tmp_path: Path) -> None:
    run_dir = _agreement_run(tmp_path)
    result = run_cli("agreement", str(run_dir), "--human", "human:nobody")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "no labels by 'human:nobody'" in result.stderr
    assert result.stdout == ""
