"""One comparison: the delta is the difference of the leaderboard scores on the paired items
(FB-Bench's EC, RM and overall macro means; Conv-to-Bench's item mean), items only one side
answered are counted and left out, checks that flipped are counted and listed."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from checkbench import api
from checkbench.convbench.scoring import store_bench_scores
from checkbench.store import RunStore
from tests.compare.published import needs_data, published_run  # noqa: F401
from tests.compare.runs import make_run

FAST = api.CompareSettings(resamples=500)
ROUNDING = 0.0101
"""Leaderboard scores are rounded to 2 decimals, the delta is not."""


@needs_data
def test_fbbench_deltas_are_the_differences_of_the_leaderboard_scores(
    published_run: Path,  # noqa: F811
) -> None:
    rows = {row.model: row for row in api.leaderboard(published_run).scores.rows}
    for base, cand in list(combinations(sorted(rows), 2))[:4]:
        found = api.compare([published_run], base, cand, FAST)
        assert found.n == 591 and found.protocol == "fb-bench" and found.policy == "zero"
        b, c = rows[base], rows[cand]
        assert found.delta == pytest.approx(c.overall - b.overall, abs=ROUNDING)
        ec, rm = found.parts["error_correction"], found.parts["response_maintenance"]
        assert ec.delta == pytest.approx(c.error_correction - b.error_correction, abs=ROUNDING)
        assert rm.delta == pytest.approx(
            c.response_maintenance - b.response_maintenance, abs=ROUNDING
        )
        assert (ec.n, rm.n) == (b.error_correction_n, b.response_maintenance_n)
        assert {cell.facet for cell in found.by_tag} == {
            "task",
            "subtask",
            "feedback_type",
            "deficiency",
        }


def test_item_mean_delta_is_the_difference_of_the_scores_on_paired_items(tmp_path: Path) -> None:
    base = [(True, False), (True, True), (False, False), (True, None), (True, True), None]
    cand = [(True, True), (False, True), (False, False), (True, True), None, (True, True)]
    run = make_run(tmp_path / "run", {"a": base, "b": cand})
    found = api.compare([run], "a", "b", FAST)
    # paired: items 0-3; item 3 unscored for a (policy exclude): items 0-2 kept
    assert (found.n, found.only_baseline, found.only_candidate, found.unscored) == (3, 1, 1, 1)
    assert found.delta == pytest.approx((100 + 50 + 0) / 3 - (50 + 100 + 0) / 3)
    paired = make_run(tmp_path / "paired", {"a": base[:3], "b": cand[:3]})
    with RunStore.existing(paired) as store:
        scores = {row.model: row.score for row in store_bench_scores(store, "judge-a").models}
    assert found.delta == pytest.approx(scores["b"] - scores["a"], abs=ROUNDING)


def test_flipped_checks_are_counted_and_the_moved_items_list_them(tmp_path: Path) -> None:
    base = [(True, True)] * 4 + [(False, False)] * 2
    cand = [(False, True)] * 3 + [(True, True)] + [(True, True), (False, False)]
    run = make_run(tmp_path / "run", {"a": base, "b": cand})
    found = api.compare([run], "a", "b", api.CompareSettings(resamples=500, top=2))
    assert (found.flips.checks, found.flips.pass_to_fail, found.flips.fail_to_pass) == (12, 3, 2)
    assert found.flips.mcnemar_p == pytest.approx(1.0)
    first, second = found.items
    assert (first.id, first.delta, first.baseline_score, first.candidate_score) == (
        "i4",
        100.0,
        0.0,
        100.0,
    )
    assert {(c.check, c.baseline, c.candidate) for c in first.flipped} == {
        ("c1", False, True),
        ("c2", False, True),
    }
    assert (second.id, second.delta) == ("i0", -50.0)
    assert second.flipped[0].text == "first check of 0"
    assert (second.baseline_answer, second.candidate_answer) == ("<b>a</b> 0", "<b>b</b> 0")


def test_two_runs_pair_by_item_id_as_two_models_of_one_run(tmp_path: Path) -> None:
    base = [(True, False), (True, True), (False, False), (True, True)]
    cand = [(True, True), (False, True), (False, True), (True, True)]
    one = make_run(tmp_path / "one", {"a": base, "b": cand})
    first, second = make_run(tmp_path / "a", {"m": base}), make_run(tmp_path / "b", {"m": cand})
    together = api.compare([one], "a", "b", FAST)
    apart = api.compare([first, second], settings=FAST)
    assert (apart.baseline, apart.candidate) == (f"m ({first})", f"m ({second})")
    assert (apart.delta, apart.ci, apart.p_value, apart.flips) == (
        together.delta,
        together.ci,
        together.p_value,
        together.flips,
    )


def test_gate_worse_beyond_chance_or_beyond_the_margin(tmp_path: Path) -> None:
    base = [(True, True)] * 40
    cand = [(True, False)] * 20 + [(True, True)] * 20
    run = make_run(tmp_path / "run", {"a": base, "b": cand, "c": base})
    worse = api.compare([run], "a", "b", FAST)
    assert worse.delta == -25.0 and worse.p_value < 0.05 and worse.worse
    assert not api.compare([run], "b", "a", FAST).worse
    same = api.compare([run], "a", "c", api.CompareSettings(resamples=500, margin=0.0))
    assert same.delta == 0.0 and not same.worse
    each = api.compare_each(run, "a", FAST)
    assert [(c.candidate, c.worse) for c in each] == [("b", True), ("c", False)]
