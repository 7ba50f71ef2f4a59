"""The PC^2 judge: weight fix-up and criteria parsing, scripted grading in both variants with
human agreement and resumption, the two-order bookkeeping, and a run on the embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.scan.pc2 import (
    CRITERIA_KIND,
    CriteriaSet,
    HumanPreference,
    PC2Result,
    PC2Settings,
    criteria_answer,
    fix_weights,
    human_accuracy,
    load_preferences,
    pc2_evaluate,
    position_report,
    win_counts,
)
from checkbench.schema import Item, Message, PairVerdict, Response
from checkbench.stats.preference import two_order_prefer
from checkbench.steps.answers import Unusable, parse_answer
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import run_cli
from tests.scan.scan_stub import answer, run_on_stub


@pytest.mark.parametrize(
    ("weights", "fixed"),
    [
        ([20, 30, 50], [20, 30, 50]),  # already 100: untouched
        ([30, 30, 30], [34, 33, 33]),  # equal remainders: the earlier criterion first
        ([1, 2], [33, 67]),  # 33.33 / 66.67: the larger remainder takes the point
        ([10, 10, 10, 10], [25, 25, 25, 25]),
        ([1, 1, 1000], [1, 1, 98]),  # shares below 1 are raised, taken from the largest
        ([60, 60, 60, 60, 60, 60, 60, 60, 60], [12, 11, 11, 11, 11, 11, 11, 11, 11]),
    ],
)
def test_fix_weights_rescales_with_largest_remainders(weights: list[int], fixed: list[int]) -> None:
    assert fix_weights(weights) == fixed
    assert sum(fixed) == 100 and min(fixed) >= 1


def _criteria(*weights: object, **extra: object) -> str:
    entries = [{"name": f"c{i}", "description": "d", "weight": w} for i, w in enumerate(weights)]
    return json.dumps({"analysis": "a", "criteria": entries, **extra})


def parse_criteria(raw: str, max_criteria: int = 9) -> CriteriaSet:
    """The criteria the judge's answer gives, as `pc2_evaluate` reads them."""
    answer = criteria_answer(PC2Settings(max_criteria=max_criteria))
    return parse_answer(raw, answer).criteria_set()


def test_parse_criteria_rescales_a_wrong_sum_and_keeps_the_original() -> None:
    parsed = parse_criteria(_criteria(40, 30, 20))
    assert [c.weight for c in parsed.criteria] == [45, 33, 22]
    assert parsed.rescaled_from == [40, 30, 20]
    assert [c.id for c in parsed.criteria] == ["k1", "k2", "k3"]
    exact = parse_criteria(_criteria(50, 25, 25))
    assert exact.rescaled_from is None and [c.weight for c in exact.criteria] == [50, 25, 25]


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (_criteria(50, 50), "'criteria' needs at least 3 entries, not 2"),
        (_criteria(*[10] * 10), "'criteria' allows at most 9 entries, not 10"),
        (_criteria(50, 25.5, 24.5), r"'criteria\[1\].weight': Input should be a valid integer"),
        (
            _criteria(50, 50, 0),
            r"'criteria\[2\].weight': Input should be greater than or equal to 1",
        ),
        (_criteria(50, True, 49), r"'criteria\[1\].weight'"),
        (_criteria(50, 25, 25).replace('"c1"', '" "'), r"'criteria\[1\].name' must not be empty"),
        ('{"criteria": "none"}', "'criteria'"),
        ("nothing", "no JSON object"),
    ],
)
def test_parse_criteria_rejects_a_wrong_count_or_format(raw: str, problem: str) -> None:
    with pytest.raises(Unusable, match=problem):
        parse_criteria(raw)


def test_max_criteria_is_bounded_by_the_protocol() -> None:
    with pytest.raises(ValueError, match="3 to 9"):
        PC2Settings(max_criteria=2)
    with pytest.raises(Unusable, match="'criteria' allows at most 4 entries, not 5"):
        parse_criteria(_criteria(20, 20, 20, 20, 20), max_criteria=4)


def _verdict(item: str, a: str, b: str, winner: str | None) -> PairVerdict:
    return PairVerdict(item_id=item, judge="j", a=a, b=b, winner=winner)


def test_two_order_bookkeeping_counts_consistent_inconsistent_and_unscored_pairs() -> None:
    verdicts = [
        _verdict("x", "good", "bad", "a"), _verdict("x", "bad", "good", "b"),  # good twice
        _verdict("y", "good", "bad", "a"), _verdict("y", "bad", "good", "a"),  # first twice
        _verdict("z", "good", "bad", "a"), _verdict("z", "bad", "good", None),  # unscored
    ]  # fmt: skip
    assert win_counts(verdicts) == {
        "bad": {"wins": 0, "ties": 1, "losses": 1, "unscored": 1},
        "good": {"wins": 1, "ties": 1, "losses": 0, "unscored": 1},
    }
    position = position_report(verdicts)
    assert (position.pairs, position.consistent_wins, position.first_position) == (2, 1, 1)
    assert position.single_order == 1
    preferences = [HumanPreference(item_id=i, chosen="good", rejected="bad") for i in "xyz"]
    by_item = {i: [v for v in verdicts if v.item_id == i] for i in "xyz"}
    accuracy = human_accuracy(preferences, lambda item: two_order_prefer(by_item[item]))
    assert (accuracy.correct, accuracy.ties, accuracy.unscored, accuracy.wrong) == (1, 1, 1, 0)
    assert accuracy.accuracy.value == pytest.approx(1 / 3)


ITEM = Item(id="capital", messages=[Message(role="user", content="What is the capital of France?")])
RESPONSES = [
    Response(item_id="capital", model="good", content="Paris."),
    Response(item_id="capital", model="bad", content="Lyon, I think."),
]
PREFERENCE = HumanPreference(item_id="capital", chosen="good", rejected="bad")


def _run_store(run_dir: Path) -> None:
    with RunStore(run_dir) as store:
        store.add_items([ITEM])
        for response in RESPONSES:
            store.put_response(response)


def _entries(key: str, values: list[object]) -> dict[str, dict[str, object]]:
    return {f"k{i}": {"reason": "r", key: v} for i, v in enumerate(values, start=1)}


SCRIPT = [
    Reply(body=completion("The capital of France is Paris.")),  # the auxiliary answer
    answer({"analysis": "a", "criteria": [{"name": "correct", "description": "d", "weight": 100}]}),
    answer({"analysis": "a", "criteria": [
        {"name": "correct city", "description": "Names Paris.", "weight": 40},
        {"name": "certainty", "description": "States it plainly.", "weight": 40},
        {"name": "brevity", "description": "No padding.", "weight": 40}]}),
    answer(_entries("score", [2, 3, 8])),  # bad, pointwise
    answer(_entries("score", [10, 10, 9])),  # good, pointwise
    answer(_entries("better", ["second", "second", "tie"])),  # (bad, good)
    answer(_entries("better", ["first", "first", "second"])),  # (good, bad)
]  # fmt: skip


def _pc2(server: OpenAIServer, run_dir: Path, preferences: list[HumanPreference]) -> PC2Result:
    with RunStore(run_dir) as store:
        return run_on_stub(
            server,
            lambda judge: pc2_evaluate(
                store, judge, [judge], settings=PC2Settings(), preferences=preferences
            ),
        )


def test_scripted_pc2_grades_both_ways_and_agrees_with_the_human(tmp_path: Path) -> None:
    _run_store(tmp_path)
    with OpenAIServer(Reply(body=completion("unexpected")), script=SCRIPT) as server:
        result = _pc2(server, tmp_path, [PREFERENCE])
        requests = list(server.requests)
        again = _pc2(server, tmp_path, [PREFERENCE])
        assert len(server.requests) == len(requests) == len(SCRIPT)
    assert "'criteria' needs at least 3 entries, not 1" in requests[2]["messages"][-1]["content"]
    assert requests[0]["messages"] == [{"role": "user", "content": ITEM.messages[0].content}]
    criteria = result.criteria["capital"]
    assert isinstance(criteria, CriteriaSet)
    assert [c.weight for c in criteria.criteria] == [34, 33, 33]
    assert criteria.rescaled_from == [40, 40, 40]
    for request in requests[3:]:  # every grading call shows the same fixed-up criteria
        assert "k1 (34): correct city: Names Paris." in request["messages"][-1]["content"]
    scores = {p.model: p.score for p in result.pointwise}
    assert scores == {"bad": pytest.approx(43.1), "good": pytest.approx(96.7)}
    margins = {(v.a, v.b): (v.winner, v.reason) for v in result.pairwise}
    assert margins[("bad", "good")] == ("b", "weighted margin -67 (first minus second)")
    assert margins[("good", "bad")] == ("a", "weighted margin +34 (first minus second)")
    report = result.report
    assert report.criteria_rescaled == 1 and report.criteria_failed == 0
    assert report.pairwise["good"] == {"wins": 1, "ties": 0, "losses": 0, "unscored": 0}
    assert report.position is not None and report.position.consistent_wins == 1
    assert report.human["pointwise"].correct == report.human["pairwise"].correct == 1
    assert again.summary.called == 0 and again.summary.already_done == 4
    assert again.report == report


def test_unusable_grades_are_unscored_and_asked_again_on_a_rerun(tmp_path: Path) -> None:
    _run_store(tmp_path)
    bad_scores = answer(_entries("score", [11, 3, 3]))  # 11 is out of range
    script = [*SCRIPT[:3], bad_scores, bad_scores, bad_scores]
    settings = PC2Settings(mode="pointwise", reasks=2)
    fallback = Reply(body=completion("still not json"))
    with OpenAIServer(fallback, script=script) as server, RunStore(tmp_path) as store:
        result = run_on_stub(server, lambda j: pc2_evaluate(store, j, [j], settings=settings))
        stored = store.records(CRITERIA_KIND)
        calls = len(server.requests)
    assert "'k1.score' must be one of 0, 1, 2" in server.requests[4]["messages"][-1]["content"]
    assert all(p.score is None and p.problem for p in result.pointwise)
    assert result.summary.errors == 2 and result.report.pointwise["good"].unscored == 1
    assert len(stored) == 1 and calls == 3 + 3 + 3


def test_preferences_must_name_responses_of_the_run(tmp_path: Path) -> None:
    _run_store(tmp_path)
    human = tmp_path / "human.jsonl"
    human.write_text(
        json.dumps({"item_id": "capital", "chosen": "good", "rejected": "bad", "who": "ann"})
        + "\n"
        + json.dumps({"item_id": "capital", "chosen": "good", "rejected": "gpt-9"})
        + "\n"
    )
    with RunStore(tmp_path) as store, pytest.raises(InputError) as error:
        load_preferences(human, store)
    assert error.value.line == 2 and error.value.field == "rejected"
    result = run_cli("scan", "pc2", str(tmp_path), "--aux", "local", "--human", str(human))
    assert result.returncode == 2 and "gpt-9" in result.stderr
    no_aux = run_cli("scan", "pc2", str(tmp_path))
    assert no_aux.returncode == 2 and "auxiliary model" in no_aux.stderr


@pytest.mark.slow
def test_pc2_command_on_the_embedded_model(tmp_path: Path) -> None:
    _run_store(tmp_path)
    human = tmp_path / "human.jsonl"
    human.write_text(PREFERENCE.model_dump_json() + "\n")
    result = run_cli(
        "scan", "pc2", str(tmp_path), "--judge", "local", "--aux", "local",
        "--mode", "pointwise", "--max-criteria", "3", "--aux-max-tokens", "24",
        "--reason-chars", "20", "--human", str(human), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["judge"].startswith("pc2:local:") and report["items"] == 1
    for model in ("good", "bad"):
        point = report["pointwise"][model]
        assert point["n"] + point["unscored"] == 1
        assert point["score"] is None or 0 <= point["score"] <= 100
    assert report["pairwise"] == {} and report["position"] is None  # pointwise only
    counts = report["human"]["pointwise"]
    assert counts["pairs"] == 1
    assert counts["correct"] + counts["wrong"] + counts["ties"] + counts["unscored"] == 1
    with RunStore(tmp_path) as store:
        (record,) = store.records(CRITERIA_KIND).values()
    if "criteria" in record:
        criteria = CriteriaSet.model_validate(record["criteria"])
        assert len(criteria.criteria) == 3 and sum(c.weight for c in criteria.criteria) == 100
