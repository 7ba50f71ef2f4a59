"""Calibrated checklist grading: the seeded item split, logistic and isotonic curves, figures on
held-out items only, the versioned artefact, and the embedded model against GPT-4o."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from checkbench.errors import InputError
from checkbench.judges.calibration import (
    REPORT_RECORD,
    CalibrationFit,
    calibrated_verdicts,
    fit_calibration,
    load_calibration,
    split_items,
    store_calibrated_verdicts,
)
from checkbench.judges.reference import CALIBRATION_RECORD, compare_verdicts, reference_agreement
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore
from tests.judges.fbbench_sample import GPT4O, PUBLISHED, embedded_sample

B = 200
GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.35, 0.4, 0.45)
"""P(yes) values of the hand-built judge: all below 0.5, so its own verdicts all say no."""
MODELS = ("m1", "m2")


def _items(n: int) -> list[Item]:
    return [
        Item(
            id=f"q{i:02d}",
            messages=[Message(role="user", content=f"question {i}")],
            checklist=[Check(id="c1", text="first"), Check(id="c2", text="second")],
            tags={"scenario": ["EC" if i % 2 else "RM"]},
        )
        for i in range(n)
    ]


def _p(index: int, model: int, check: int) -> float:
    """Item i's four checks get four consecutive grid values (from position i mod 8)."""
    return GRID[(index + 2 * model + check) % len(GRID)]


def _run(tmp_path: Path, n: int, label) -> tuple[RunStore, list[Item]]:
    """A run with a reference judge "ref" whose verdict is label(item, P(yes)), and a log-prob
    judge "cheap" whose P(yes) follows the grid."""
    items = _items(n)
    store = RunStore(tmp_path / "run")
    store.add_items(items)
    verdicts = []
    for index, item in enumerate(items):
        for m, model in enumerate(MODELS):
            store.put_response(Response(item_id=item.id, model=model, content="answer"))
            for c, check in enumerate(item.checklist):
                p = _p(index, m, c)
                key = {"item_id": item.id, "model": model, "check_id": check.id}
                verdicts.append(Verdict(judge="cheap", passed=p >= 0.5, p_yes=p, **key))
                verdicts.append(Verdict(judge="ref", passed=label(item, p), **key))
    store.put_verdicts(verdicts)
    return store, items


def _covers(store: RunStore, item_ids: list[str], values: set[float]) -> bool:
    found = {v.p_yes for v in store.verdicts("cheap") if v.item_id in item_ids}
    return values <= found


def test_the_split_is_seeded_disjoint_and_complete() -> None:
    ids = [f"x{i}" for i in range(50)] * 2  # every item several times (several responses)
    train, test = split_items(ids, 0.3, seed=7)
    assert not set(train) & set(test) and set(train) | set(test) == set(ids)
    assert len(test) == 15 and split_items(ids, 0.3, seed=7) == (train, test)
    assert split_items(ids, 0.3, seed=8) != (train, test)
    with pytest.raises(InputError, match="at least 2 items"):
        split_items(["only"])


def test_isotonic_repairs_a_judge_that_says_no_to_everything(tmp_path: Path) -> None:
    store, _ = _run(tmp_path, 24, lambda item, p: p >= 0.25)
    report = fit_calibration(store, CalibrationFit("cheap", "ref", method="isotonic", b=B))
    calibration = load_calibration(store, report.name)
    assert report.name == "cheap#calibrated"
    assert not set(calibration.train_items) & set(calibration.test_items)
    assert len(calibration.train_items) + len(calibration.test_items) == 24
    assert _covers(store, calibration.train_items, {0.2, 0.3})  # the step is seen in training
    held_out = [v for v in store.verdicts("ref") if v.item_id in calibration.test_items]
    negative = sum(not v.passed for v in held_out) / len(held_out)
    before, after = report.before.agreement, report.after.agreement
    assert before.n == after.n == len(held_out) == report.test.verdicts
    assert report.before.excluded_items == 24 - report.test.items
    # Uncalibrated, every check fails: agreement is the held-out share of reference fails.
    assert before.agreement.value == pytest.approx(negative) and before.sensitivity.value == 0
    # Isotonic on the grid: 0 up to 0.2, 1 from 0.3, so every held-out check is right.
    assert after.agreement.value == 1.0 and after.kappa.value == pytest.approx(1.0)
    assert report.after.ranking.spearman.n == 2


def test_logistic_calibration_improves_the_held_out_agreement(tmp_path: Path) -> None:
    store, _ = _run(tmp_path, 24, lambda item, p: p >= 0.25)
    report = fit_calibration(store, CalibrationFit("cheap", "ref", method="logistic", b=B))
    assert report.after.agreement.agreement.value > report.before.agreement.agreement.value
    assert report.after.agreement.agreement.value >= 0.85
    fit = CalibrationFit("cheap", "ref", decision="rate", name="rate", b=B)
    rate = fit_calibration(store, fit, save=False)
    assert 0 < rate.threshold < 1 and rate.threshold != 0.5


def test_held_out_figures_are_not_training_figures(tmp_path: Path) -> None:
    """The reference follows P(yes) on the training items and contradicts it on the others:
    the calibration is perfect on what it saw and always wrong on what it did not."""
    ids = [item.id for item in _items(24)]
    train, test = split_items(ids, 0.5, seed=0)
    store, items = _run(tmp_path, 24, lambda item, p: (p >= 0.25) == (item.id in train))
    report = fit_calibration(store, CalibrationFit("cheap", "ref", method="isotonic", b=B))
    calibration = load_calibration(store, report.name)
    assert (calibration.train_items, calibration.test_items) == (train, test)
    assert _covers(store, train, {0.2, 0.3})
    calibrated = calibrated_verdicts(calibration, items, store.verdicts("cheap"))
    on_training = compare_verdicts(
        items, store.responses(), calibrated, store.verdicts("ref"), exclude_items=test, b=B
    )
    assert on_training.agreement.agreement.value == 1.0
    assert report.after.agreement.agreement.value == 0.0
    assert report.train.verdicts + report.test.verdicts == 24 * 4


def test_per_group_curves_fit_groups_with_different_steps(tmp_path: Path) -> None:
    # EC checks pass from P(yes) 0.3, RM checks only from 0.4: one curve cannot fit both.
    def label(item: Item, p: float) -> bool:
        return p >= (0.25 if item.tag("scenario") == ["EC"] else 0.375)

    store, _ = _run(tmp_path, 48, label)
    grouped = fit_calibration(
        store,
        CalibrationFit("cheap", "ref", method="isotonic", by="tag:scenario", min_group=10, b=B),
    )
    single = fit_calibration(
        store, CalibrationFit("cheap", "ref", method="isotonic", name="one", b=B)
    )
    assert set(grouped.groups) == {"EC", "RM"}
    assert grouped.after.agreement.agreement.value == 1.0
    assert single.after.agreement.agreement.value < 1.0


def test_the_artefact_round_trips_and_refuses_another_version(tmp_path: Path) -> None:
    store, items = _run(tmp_path, 24, lambda item, p: p >= 0.25)
    report = fit_calibration(store, CalibrationFit("cheap", "ref", method="isotonic", b=B))
    calibration = load_calibration(store, report.name)
    assert store.records(REPORT_RECORD)[report.name].after.judge == report.name
    # The stored knots predict what scikit-learn's fitted model predicts, in and out of range.
    from sklearn.isotonic import IsotonicRegression

    train = [v for v in store.verdicts("cheap") if v.item_id in calibration.train_items]
    gold = {(v.item_id, v.model, v.check_id): v.passed for v in store.verdicts("ref")}
    fitted = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(
        [v.p_yes for v in train], [gold[(v.item_id, v.model, v.check_id)] for v in train]
    )
    grid = np.linspace(0, 1, 101)
    assert np.allclose(calibration.curves["*"].predict(grid), fitted.predict(grid))
    # Through a file, into another run with the same judge's verdicts.
    path = tmp_path / "calibration.json"
    path.write_text(calibration.model_dump_json())
    other = RunStore(tmp_path / "other")
    other.add_items(items)
    for response in store.responses():
        other.put_response(response)
    other.put_verdicts(store.verdicts("cheap"))
    assert load_calibration(other, str(path)) == calibration
    applied = store_calibrated_verdicts(other, str(path))
    assert len(applied) == len(store.verdicts("cheap"))
    assert {v.judge for v in other.verdicts(report.name)} == {report.name}
    # Measured in the run, a calibrated judge leaves its training items out by itself.
    store_calibrated_verdicts(store, report.name)
    measured = reference_agreement(store, report.name, "ref", b=B)
    assert measured.excluded_items == len(calibration.train_items)
    assert measured.agreement == report.after.agreement
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "version": 2}))
    with pytest.raises(InputError, match="version 2 is not") as err:
        load_calibration(other, str(path))
    assert err.value.field == "version" and err.value.path == str(path)
    store.put_record(CALIBRATION_RECORD, "broken", {k: v for k, v in data.items() if k != "format"})
    with pytest.raises(InputError, match="not a checkbench.calibration"):
        load_calibration(store, "broken")


def test_a_text_mode_judge_cannot_be_calibrated(tmp_path: Path) -> None:
    store, _ = _run(tmp_path, 4, lambda item, p: True)
    store.put_verdicts(
        v.model_copy(update={"judge": "text", "p_yes": None}) for v in store.verdicts("cheap")
    )
    with pytest.raises(InputError, match="no P\\(yes\\)"):
        fit_calibration(store, CalibrationFit("text", "ref"))
    with pytest.raises(InputError, match="own"):
        fit_calibration(store, CalibrationFit("cheap", "ref", name="cheap"))


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason="shared FB-Bench data absent")
@pytest.mark.slow
def test_embedded_log_prob_judge_calibrated_to_gpt4o() -> None:
    store, judge, sample = embedded_sample()
    report = fit_calibration(store, CalibrationFit(judge, GPT4O, name="embedded-test", b=B))
    calibration = load_calibration(store, "embedded-test")
    assert report.reference == GPT4O
    assert sorted(calibration.train_items + calibration.test_items) == sorted(sample.items)
    assert not set(calibration.train_items) & set(calibration.test_items)
    own = [v for v in store.verdicts(judge) if v.item_id in calibration.test_items]
    gold = {(v.item_id, v.model, v.check_id): v.passed for v in store.verdicts(GPT4O)}
    same = [gold[(v.item_id, v.model, v.check_id)] == v.passed for v in own]
    assert report.before.agreement.n == report.after.agreement.n == len(own)
    assert report.before.agreement.agreement.value == pytest.approx(sum(same) / len(same))
    assert report.unusable == sum(v.p_yes is None for v in store.verdicts(judge))
    assert report.before.ranking.responses == len(sample.models) * len(calibration.test_items)


def _base_rate_label(item: Item, _p: float) -> bool:
    """A reference that ignores P(yes) and passes 9 checks in 10 (items q*0 fail)."""
    return not item.id.endswith("0")


def test_a_constant_calibrated_judge_is_warned_about(tmp_path: Path) -> None:
    # P(yes) says nothing of the reference, which mostly passes: the fitted curve sits above
    # 0.5 everywhere, so the calibrated judge says yes to everything. Its raw agreement looks
    # like a gain; kappa and balanced accuracy show it is not, and the report says so.
    store, _ = _run(tmp_path, 40, _base_rate_label)
    report = fit_calibration(store, CalibrationFit("cheap", "ref", b=B))
    after = report.after.agreement
    assert after.judged_negative == 0 and after.judged_positive == after.n
    assert after.agreement.value == pytest.approx(after.base_rate)
    assert after.agreement.value > report.before.agreement.agreement.value
    assert after.kappa.value == pytest.approx(0.0)
    assert after.balanced_accuracy.value == pytest.approx(0.5)
    assert report.warning is not None and "\n" not in report.warning
    assert report.warning.startswith("WARNING: calibrated judge cheap#calibrated")
    assert "constant" in report.warning and "kappa 0.000 <= 0" in report.warning
    assert store.records(REPORT_RECORD)["cheap#calibrated"].warning == report.warning
    # The report's Judges tab carries it (report.js shows it above the figures).
    from checkbench.report.assemble import build_report
    from checkbench.report.run import ReportOptions

    meta = build_report(store, ReportOptions()).data["meta"]["judges"]
    assert meta["cheap#calibrated"]["calibration_report"]["warning"] == report.warning


def test_an_informative_calibration_has_no_warning(tmp_path: Path) -> None:
    store, _ = _run(tmp_path, 24, lambda item, p: p >= 0.25)
    report = fit_calibration(store, CalibrationFit("cheap", "ref", method="isotonic", b=B))
    assert report.warning is None and report.after.agreement.kappa.value > 0.5


def test_groups_too_small_to_fit_are_named_with_their_fallback(tmp_path: Path) -> None:
    store, _ = _run(tmp_path, 24, lambda item, p: p >= 0.25)
    report = fit_calibration(
        store, CalibrationFit("cheap", "ref", by="tag:scenario", min_group=100, b=B)
    )
    assert report.groups == {}
    assert set(report.fallback_groups) == {"EC", "RM"}
    assert all("fewer than 100" in why for why in report.fallback_groups.values())
