"""Every flag on a run built to raise it, with its reason in words, and the ordinary checks
left alone; the correlations against scipy's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from checkbench.audit.checks import correlations
from checkbench.audit.run import AuditReport, audit_run
from tests.audit.runs import ability_rule, build_run, item, plain_items

MODELS = 6


def _rule(m: int, item_id: str, check_id: str, sample: int, judge: str) -> bool | None:
    if item_id == "i0" and check_id != "c1":
        return check_id == "c2"  # c2 passed by all, c3 failed by all
    if item_id == "i2" and check_id == "c2":
        return m < 3  # the weak models pass it
    passed = ability_rule(m, item_id, check_id, sample, judge)
    if item_id == "i3" and check_id == "c1" and judge == "judge-b" and m < 3:
        return not passed
    if item_id == "i4" and check_id == "c1" and m < 3:
        return sample == 0
    if item_id == "i5" and check_id == "c1" and m % 2 and judge == "judge-a":
        return None
    return passed


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> AuditReport:
    items = plain_items(12)
    items[1] = item(
        "i1",
        ["Does it say the year 1969?", "Does it say the year 1969 ?", "<yes/no question>"],
        1,
    )
    run = build_run(
        tmp_path_factory.mktemp("audit") / "run",
        items,
        MODELS,
        _rule,
        samples=2,
        judges=("judge-a", "judge-b"),
    )
    return audit_run(run)


def _flags(report: AuditReport) -> dict[tuple[str, str], list[str]]:
    return {
        (c.item_id, c.check_id): [f"{f.kind}: {f.reason}" for f in c.flags]
        for c in report.check_audits
        if c.flags
    }


def test_each_flag_names_its_reason_in_words(report: AuditReport) -> None:
    flags = _flags(report)
    assert flags[("i0", "c2")] == ["all-pass: passed by every model (6)"]
    assert flags[("i0", "c3")] == ["all-fail: failed by every model (6)"]
    assert flags[("i1", "c2")][0].startswith("duplicate: duplicate of check 1 (cosine")
    assert flags[("i1", "c3")] == ["placeholder: placeholder text '<yes/no question>'"]
    assert flags[("i2", "c2")][0].startswith("negative: discriminates negatively (r = -")
    assert flags[("i3", "c1")] == ["disagree: judges disagree on 50%"]
    assert flags[("i4", "c1")] == ["flip: flips between samples for 50% of models"]
    assert flags[("i5", "c1")] == ["unscored: unscored in 50% of verdicts"]
    assert len(flags) == 8, flags  # the ordinary checks raise nothing


def test_the_figures_of_a_flagged_check(report: AuditReport) -> None:
    by_key = {(c.item_id, c.check_id): c for c in report.check_audits}
    assert by_key["i0", "c2"].pass_rate == 1.0
    assert by_key["i3", "c1"].disagreement == 0.5
    assert by_key["i5", "c1"].verdicts == MODELS * 2
    assert by_key["i2", "c2"].irt_a is not None and by_key["i2", "c2"].irt_a < 0
    assert by_key["i2", "c1"].irt_a is not None and by_key["i2", "c1"].irt_a > 0
    assert report.flags == {
        "all-fail": 1,
        "all-pass": 1,
        "disagree": 1,
        "duplicate": 1,
        "flip": 1,
        "negative": 1,
        "placeholder": 1,
        "unscored": 1,
    }
    assert report.limits == []


def test_correlations_are_scipy_pearson_with_a_one_sided_p_value() -> None:
    rng = np.random.default_rng(3)
    x = rng.random((5, 7))
    x[1, 2] = np.nan
    y = rng.random(7)
    r, p = correlations(x, y)
    for row in range(5):
        kept = ~np.isnan(x[row])
        expected = stats.pearsonr(x[row, kept], y[kept], alternative="less")
        assert r[row] == pytest.approx(expected.statistic)
        assert p[row] == pytest.approx(expected.pvalue)


def test_no_correlation_without_variance_or_three_models() -> None:
    r, p = correlations(np.array([[1.0, 1.0, 1.0], [0.0, 1.0, np.nan]]), np.array([1.0, 2, 3]))
    assert np.isnan(r).all() and np.isnan(p).all()


def test_a_run_whose_items_are_not_fbbench_is_audited_by_its_own_protocol(tmp_path: Path) -> None:
    items = [it.model_copy(update={"tags": {}}) for it in plain_items(4)]
    report = audit_run(build_run(tmp_path / "run", items, MODELS, ability_rule))
    assert report.protocol == "conv-to-bench"
    assert report.flagged_checks == 0
