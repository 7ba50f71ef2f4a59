"""The verdict matrix read from a run's columns: each verdict in its cell, unscored ones
marked, missing ones NaN, the scored judge first."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from checkbench.audit.matrix import VerdictMatrix
from checkbench.store import RunStore
from tests.audit.runs import build_run, plain_items


def _rule(m: int, item_id: str, check_id: str, sample: int, judge: str) -> bool | None:
    if (m, item_id, check_id, judge) == (1, "i1", "c3", "a"):
        return None
    return (m + sample + int(item_id[1:])) % 2 == 0 or judge == "b"


def test_every_verdict_lands_in_its_cell(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", plain_items(2), 2, _rule, samples=2, judges=("a", "b"))
    with RunStore.existing(run) as store:
        matrix = VerdictMatrix.of(store, "b")
    assert matrix.judges == ["b", "a"] and matrix.models == ["m0", "m1"]
    assert matrix.passed.shape == (2, 6, 2, 2)
    assert matrix.checks.item_ids == ["i0"] * 3 + ["i1"] * 3
    assert matrix.checks.number.tolist() == [1, 2, 3, 1, 2, 3]
    c = 5  # i1 c3
    assert np.isnan(matrix.passed[1, c, 1]).all() and matrix.unscored[1, c, 1].all()
    assert not matrix.unscored[0].any()
    assert matrix.passed[1, 0, 0].tolist() == [1.0, 0.0]  # i0, m0: samples 0 and 1
    assert matrix.model_rates(1)[0].tolist() == [0.5, 0.5]
    assert np.isnan(matrix.model_rates(1)[c, 1])
