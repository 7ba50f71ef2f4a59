"""The refined benchmark: written without the flagged checks, weights rescaled, with its
provenance; the same run scored with the refined checklists, with no model call, gives the
leaderboard of a run built from the refined file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench import api
from checkbench.audit.refine import rescaled
from checkbench.audit.settings import AuditSettings
from checkbench.benchmarks import load_items
from checkbench.errors import InputError
from checkbench.store import RunStore
from tests.audit.runs import ability_rule, build_run, plain_items

MODELS = 6


def _rule(m: int, item_id: str, check_id: str, sample: int, judge: str) -> bool:
    if item_id in ("i0", "i3") and check_id == "c2":
        return True  # passed by every model
    if item_id == "i1":
        return False  # every check failed by every model: the item is kept whole
    return ability_rule(m, item_id, check_id, sample, judge)


def test_weights_are_rescaled_as_the_rule_scores_them() -> None:
    assert rescaled("weighted", [0.5, 0.25]) == pytest.approx([2 / 3, 1 / 3])
    assert rescaled("mean", [0.5, 0.25]) == [0.5, 0.25]
    assert rescaled("weighted", [0.0, None]) == [0.0, None]


def test_the_refined_leaderboard_is_the_refined_files_without_a_model_call(tmp_path: Path) -> None:
    items = plain_items(8)
    run = build_run(tmp_path / "run", items, MODELS, _rule)
    full = api.leaderboard(run).scores
    out = tmp_path / "refined.jsonl"
    report = api.audit(run, AuditSettings(drop=("all-pass", "all-fail")), write_refined=out)
    assert report.refinement.checks_dropped == 2
    assert (report.refinement.items_changed, report.refinement.items_kept_whole) == (2, 1)

    refined_items = load_items(out)
    assert [it.id for it in refined_items] == [it.id for it in items]
    changed = refined_items[0]
    assert [(c.id, c.weight) for c in changed.checklist] == [
        ("c1", pytest.approx(2 / 3)),
        ("c3", pytest.approx(1 / 3)),
    ]
    provenance = changed.meta["refined"]
    assert provenance["run"] == str(run) and provenance["drop"] == ["all-pass", "all-fail"]
    assert provenance["left_out"] == [
        {
            "check_id": "c2",
            "text": items[0].checklist[1].text,
            "reasons": ["passed by every model (6)"],
        }
    ]
    assert refined_items[1] == items[1]  # kept whole

    refined = api.leaderboard(run, settings=api.ScoringSettings(checklist="refined")).scores
    rebuilt = api.leaderboard(build_run(tmp_path / "rebuilt", refined_items, MODELS, _rule)).scores
    assert refined.rows == rebuilt.rows
    assert refined.rows != full.rows
    assert api.leaderboard(run).scores.rows == full.rows  # the run's own checklists are untouched
    with RunStore.existing(run) as store:
        assert store.usage() == []  # no model was called


def test_a_run_without_refined_checklists_says_how_to_make_them(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", plain_items(2), 2, ability_rule)
    with pytest.raises(InputError, match="audit RUN --write-refined"):
        api.leaderboard(run, settings=api.ScoringSettings(checklist="refined"))


def test_the_json_report_lists_every_check(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", plain_items(3), MODELS, _rule)
    report = json.loads(api.audit(run).model_dump_json())
    assert len(report["check_audits"]) == 9
    assert report["flags"] == {"all-fail": 3, "all-pass": 1}
