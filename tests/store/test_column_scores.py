"""Scores and the FB-Bench layout read in columns (`store_scores`, `Layout.of_store`) equal
those computed from objects, for every rule, several samples, gaps and unscored checks, and
fail on the same bad input with the same message."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from checkbench.errors import InputError
from checkbench.fbbench.means import Layout
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.scoring import score_responses, store_scores
from checkbench.store import RunStore

JUDGE = "j"
RULES = ("mean", "weighted", "any", "all")


def _item(i: int) -> Item:
    """Items of every rule; weights that do not add up exactly in binary; tags shared by
    several items, a value given twice, an item without a breakdown facet; one item without
    checks."""
    rule = RULES[i % 4]
    weights = [0.1, 0.2, 0.3, 0.4] if i % 3 else [0.7, 0.3]
    checks = (
        []
        if i == 5
        else [Check(id=f"c{k}", text=f"check {k}", weight=w) for k, w in enumerate(weights)]
    )
    return Item(
        id=f"q{i}",
        messages=[Message(role="user", content=f"question {i}")],
        checklist=checks,
        rule=rule if checks else "mean",
        tags={
            "scenario": ["EC" if i % 2 else "RM"],
            "task": [f"t{i % 3}"],
            "feedback_type": ["Hint", "Hint"] if i % 7 == 0 else [f"f{i % 2}"],
            **({"deficiency": [f"d{i % 5}"]} if i % 4 else {}),
        },
    )


def _store(run_dir: Path, n: int = 80, samples: int = 3) -> RunStore:
    """Two models answer every item `samples` times (one model once on some items); the
    judge leaves checks unscored or without a verdict, and whole samples unjudged."""
    rng = random.Random(3)
    items = [_item(i) for i in range(n)]
    store = RunStore(run_dir)
    store.add_items(items)
    with store.transaction():
        for model in ("m-b", "m-a"):
            for item in items:
                for sample in range(1 if model == "m-a" and item.id < "q3" else samples):
                    store.put_response(
                        Response(item_id=item.id, model=model, sample=sample, content="answer")
                    )
                    if rng.random() < 0.05:
                        continue
                    store.put_verdicts(
                        Verdict(
                            item_id=item.id,
                            model=model,
                            judge=JUDGE,
                            check_id=check.id,
                            sample=sample,
                            passed=None if rng.random() < 0.03 else rng.random() < 0.6,
                        )
                        for check in item.checklist
                        if rng.random() > 0.02
                    )
    return store


def test_item_scores_in_columns_are_those_from_objects(tmp_path: Path) -> None:
    with _store(tmp_path / "run") as store:
        ids = [item.id for item in store.items()]
        objects = score_responses(store.items(), store.responses(), store.verdicts(JUDGE))
        columns = store_scores(store, JUDGE)
        assert list(columns) == ["m-a", "m-b"]
        assert {model: scores.as_scores(ids) for model, scores in columns.items()} == objects
        assert [scores.samples for scores in columns.values()] == [3, 3]
        values = objects["m-b"].values()
        assert None in values and len({v for v in values if v is not None}) > 10
        assert objects["m-b"]["q5"] is None  # no checks: unscored


def _layouts_equal(a: Layout, b: Layout) -> None:
    assert np.array_equal(a.group, b.group) and a.scenarios == b.scenarios
    assert all(np.array_equal(a.slices[k], b.slices[k]) for k in a.slices)
    assert list(a.facets) == list(b.facets)
    for facet, by_value in a.facets.items():
        assert list(by_value) == list(b.facets[facet])
        for value, positions in by_value.items():
            assert positions.tolist() == b.facets[facet][value].tolist()


def test_layout_in_columns_is_the_one_from_objects(tmp_path: Path) -> None:
    with _store(tmp_path / "run") as store:
        from_objects = Layout.of((item.id, item.tags) for item in store.items())
        from_columns = Layout.of_store(store)
    _layouts_equal(from_columns, from_objects)
    assert from_columns.facets["feedback_type"]["Hint"].tolist()[:2] == [0, 0]  # listed twice


def test_a_verdict_on_no_check_fails_alike(tmp_path: Path) -> None:
    with _store(tmp_path / "run", n=8, samples=1) as store:
        store.put_verdicts(
            [Verdict(item_id="q6", model="m-a", judge=JUDGE, check_id="zz", passed=True)]
        )
        with pytest.raises(ValueError) as objects:
            score_responses(store.items(), store.responses(), store.verdicts(JUDGE))
        with pytest.raises(ValueError) as columns:
            store_scores(store, JUDGE)
    assert str(columns.value) == str(objects.value) == "item q6: verdict for unknown check 'zz'"


def test_an_item_without_one_scenario_fails_alike(tmp_path: Path) -> None:
    with _store(tmp_path / "run", n=8, samples=1) as store:
        store._db.execute(
            "UPDATE items SET tags = ? WHERE id IN ('q4', 'q6')",
            (json.dumps({"scenario": ["EC", "RM"], "task": ["t1"]}),),
        )
        with pytest.raises(InputError) as objects:
            Layout.of((item_id, json.loads(tags)) for item_id, _, _, tags in store.item_columns())
        with pytest.raises(InputError) as columns:
            Layout.of_store(store)
    assert str(columns.value) == str(objects.value)
    assert "item q4 has ['EC', 'RM'] 'scenario' tag(s)" in str(columns.value)
