"""Resolving the two sides: models by name (or a run's only model), the judge both runs share,
and one line for what cannot be compared."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench import api
from checkbench.errors import InputError
from checkbench.scoring import ScoreLayout
from checkbench.store import RunStore
from tests.compare.runs import make_run
from tests.fbbench.test_data import ec_sample, judged, write_lines

FAST = api.CompareSettings(resamples=200)
ONE = [(True, False), (True, True)]
OTHER = [(True, True), (False, False)]


@pytest.mark.parametrize(
    ("baseline", "candidate", "message"),
    [
        ("nope", "b", "no model 'nope' (models: a, b)"),
        ("a", None, "name both models of the run: --baseline A --candidate B"),
        ("a", "a", "the baseline and the candidate are the same model 'a'"),
    ],
)
def test_models_of_one_run(
    tmp_path: Path, baseline: str, candidate: str | None, message: str
) -> None:
    run = make_run(tmp_path / "run", {"a": ONE, "b": OTHER})
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        api.compare([run], baseline, candidate, FAST)


def test_two_runs_name_their_model_when_they_hold_several(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a", {"a": ONE, "b": OTHER})
    second = make_run(tmp_path / "b", {"c": OTHER})
    with pytest.raises(InputError, match="holds 2 models .*name the baseline with --baseline"):
        api.compare([first, second], settings=FAST)
    assert api.compare([first, second], "b", settings=FAST).delta == 0.0


def test_runs_without_shared_items_or_over_other_benchmarks_are_refused(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a", {"a": ONE})
    other_ids = make_run(tmp_path / "b", {"b": OTHER}, prefix="x")
    with pytest.raises(InputError, match="no shared items"):
        api.compare([first, other_ids], settings=FAST)
    fb = tmp_path / "fb"
    sample = ec_sample("题一", checklist=[["是否给出2", 1.0]])
    (tmp_path / "files").mkdir()
    path = write_lines(tmp_path / "files" / "m.jsonl", [judged(sample, ["是"])])
    api.import_fbbench_judgments(path.parent, fb)
    with pytest.raises(InputError, match="runs over different benchmarks: .* fb-bench, .* as"):
        api.compare([fb, first], settings=FAST)


def test_different_judges_only_when_allowed_and_then_said(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a", {"a": ONE}, judge="judge-a")
    second = make_run(tmp_path / "b", {"b": OTHER}, judge="judge-b")
    with pytest.raises(InputError, match="different judges: .* --allow-different-judges"):
        api.compare([first, second], settings=FAST)
    allowed = api.CompareSettings(resamples=200, allow_different_judges=True)
    found = api.compare([first, second], settings=allowed)
    assert found.different_judges and found.judge == "judge-a / judge-b"
    with pytest.raises(InputError, match="no verdicts by judge 'judge-a'"):
        api.compare([first, second], settings=api.CompareSettings(judge_id="judge-a"))


def test_models_that_answered_no_item_in_common_are_refused(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"a": [(True, True), None], "b": [None, (True, False)]})
    with pytest.raises(InputError, match="no shared items: a and b answered no item in common"):
        api.compare([run], "a", "b", FAST)
    assert [c.n for c in api.compare_each(run, "a", FAST)] == [0]  # a row, counted


def test_layout_of_item_means_holds_each_facet_value_positions(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"a": ONE + OTHER})
    with RunStore.existing(run) as store:
        layout = ScoreLayout.item_means(store, "exclude")
    assert list(layout.facets) == ["topic"]
    assert {v: p.tolist() for v, p in layout.facets["topic"].items()} == {
        "even": [0, 2],
        "odd": [1, 3],
    }
