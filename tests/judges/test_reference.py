"""A judge against a reference judge: per-check agreement and the ranking effect, on verdict
sets worked out by hand, on FB-Bench's published GPT-4o verdicts, and with the embedded model
as the cheap judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.judges.reference import (
    REFERENCE_RECORD,
    compare_verdicts,
    load_reference_verdicts,
    reference_agreement,
)
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore
from tests.judges.fbbench_sample import GPT4O, PUBLISHED, embedded_sample, published_run

B = 300
MODELS = ("A", "B", "C")
ITEMS = [
    Item(
        id=f"i{n}",
        messages=[Message(role="user", content=f"question {n}")],
        checklist=[Check(id="c1", text="first"), Check(id="c2", text="second")],
    )
    for n in range(1, 5)
]
RESPONSES = [Response(item_id=i.id, model=m, content="answer") for i in ITEMS for m in MODELS]

# The reference: A passes every check (score 100), B only c1 (50), C nothing (0).
REF_PASS = {"A": {"c1", "c2"}, "B": {"c1"}, "C": set()}
# The judge differs on four checks: A fails i1.c2, B passes i1.c2, C passes i2.c1 and i3.c1.
# Item scores: A 0.5, 1, 1, 1 (87.5); B 1, .5, .5, .5 (62.5); C 0, .5, .5, 0 (25).
FLIPS = {("A", "i1", "c2"), ("B", "i1", "c2"), ("C", "i2", "c1"), ("C", "i3", "c1")}


def _verdicts(judge: str, flips: set[tuple[str, str, str]] = frozenset()) -> list[Verdict]:
    out = []
    for item in ITEMS:
        for model in MODELS:
            for check in item.checklist:
                passed = check.id in REF_PASS[model]
                if (model, item.id, check.id) in flips:
                    passed = not passed
                out.append(
                    Verdict(
                        item_id=item.id, model=model, judge=judge, check_id=check.id, passed=passed
                    )
                )
    return out


def _compare(judge: list[Verdict], reference: list[Verdict], **kw):
    return compare_verdicts(ITEMS, RESPONSES, judge, reference, b=B, **kw)


def test_hand_worked_agreement_and_ranking() -> None:
    result = _compare(_verdicts("cheap", FLIPS), _verdicts("ref"))
    a = result.agreement
    # 24 check verdicts, 4 disagree; gold 12 yes / 12 no; TP 11, FN 1, TN 9, FP 3.
    assert (a.n, a.clusters, a.unscored) == (24, 4, 0)
    assert a.agreement.value == pytest.approx(20 / 24)
    assert a.sensitivity.value == pytest.approx(11 / 12)
    assert a.specificity.value == pytest.approx(9 / 12)
    # p_o = 20/24, p_e = (12 * 14 + 12 * 10) / 24^2 = 1/2, kappa = (5/6 - 1/2) / (1/2) = 2/3.
    assert a.kappa.value == pytest.approx(2 / 3)
    # alpha = 1 - (48 - 1) * 4 / (22 zeros * 26 ones).
    assert a.alpha.value == pytest.approx(1 - 47 * 4 / (22 * 26))
    r = result.ranking
    assert (r.items, r.responses, r.judge_unscored, r.reference_unscored) == (4, 12, 0, 0)
    scores = {m.model: (m.reference.value, m.judge.value, m.shift.value) for m in r.models}
    assert scores == {
        "A": pytest.approx((100, 87.5, -12.5)),
        "B": pytest.approx((50, 62.5, 12.5)),
        "C": pytest.approx((0, 25, 25)),
    }
    assert r.spearman.value == pytest.approx(1.0) and r.kendall_tau_b.value == pytest.approx(1.0)
    assert r.largest_shift.value == pytest.approx(25) and r.largest_shift_model == "C"
    # One quantity, one interval: the largest shift is model C's row, interval and all.
    assert r.largest_shift == next(m.shift for m in r.models if m.model == "C")
    for stat in (a.agreement, a.kappa, r.largest_shift, *(m.shift for m in r.models)):
        assert stat.low <= stat.value <= stat.high
    assert a.agreement.low < a.agreement.value < a.agreement.high


def test_a_judge_that_swaps_two_models() -> None:
    # The judge fails every B check, passes C's c1 everywhere and C's c2 on i1, and fails A's
    # c2 on i1: A 87.5, B 0, C 62.5. Reference ranks A 1, B 2, C 3; judge A 1, B 3, C 2.
    swap = {("B", i.id, "c1") for i in ITEMS} | {("C", i.id, "c1") for i in ITEMS}
    swap |= {("C", "i1", "c2"), ("A", "i1", "c2")}
    r = _compare(_verdicts("cheap", swap), _verdicts("ref")).ranking
    assert {m.model: m.judge_rank for m in r.models} == {"A": 1.0, "B": 3.0, "C": 2.0}
    # Spearman = 1 - 6 * sum d^2 / (n (n^2 - 1)) = 1 - 6 * 2 / 24.
    assert r.spearman.value == pytest.approx(0.5)
    # Pairs (A,B) and (A,C) concordant, (B,C) discordant: (2 - 1) / 3.
    assert r.kendall_tau_b.value == pytest.approx(1 / 3)
    assert r.largest_shift.value == pytest.approx(62.5) and r.largest_shift_model == "C"
    assert r.spearman.low <= r.spearman.value <= r.spearman.high


def test_identical_judges_agree_fully_with_degenerate_shift_intervals() -> None:
    r = _compare(_verdicts("copy"), _verdicts("ref"))
    assert r.agreement.agreement.value == 1.0 and r.agreement.kappa.value == pytest.approx(1.0)
    assert r.ranking.spearman.value == pytest.approx(1.0)
    assert (r.ranking.largest_shift.low, r.ranking.largest_shift.high) == (0.0, 0.0)


def test_unscored_verdicts_are_counted_and_follow_the_policy() -> None:
    judge = _verdicts("cheap")
    judge[0] = judge[0].model_copy(update={"passed": None})  # A, i1, c1
    zero = _compare(judge, _verdicts("ref"))
    assert zero.agreement.unscored == 1 and zero.ranking.judge_unscored == 1
    a_zero = next(m for m in zero.ranking.models if m.model == "A")
    assert a_zero.judge.value == pytest.approx(75.0) and a_zero.items == 4
    excluded = _compare(judge, _verdicts("ref"), policy="exclude").ranking
    a_excl = next(m for m in excluded.models if m.model == "A")
    assert a_excl.judge.value == pytest.approx(100.0)


def test_only_responses_both_judged_count_for_the_ranking() -> None:
    judge = [v for v in _verdicts("cheap", FLIPS) if v.item_id in ("i1", "i2")]
    result = _compare(judge, _verdicts("ref"))
    assert result.ranking.items == 2 and result.ranking.responses == 6
    # Only the verdicts the judge lacks are left out of the agreement, and counted.
    assert result.agreement.n == 12 and result.agreement.only_reference == 12
    c = next(m for m in result.ranking.models if m.model == "C")
    assert c.judge.value == pytest.approx(25.0)  # items i1 (0) and i2 (0.5)


def test_several_judges_on_one_side_are_refused() -> None:
    with pytest.raises(InputError, match="one judge"):
        _compare(_verdicts("x") + _verdicts("y"), _verdicts("ref"))


def _run(tmp_path: Path) -> RunStore:
    store = RunStore(tmp_path / "run")
    store.add_items(ITEMS)
    for response in RESPONSES:
        store.put_response(response)
    store.put_verdicts(_verdicts("cheap", FLIPS) + _verdicts("ref"))
    return store


def test_in_the_run_and_from_a_file_of_verdicts(tmp_path: Path) -> None:
    with _run(tmp_path) as store:
        stored = reference_agreement(store, "cheap", "ref", b=B)
        assert store.records(REFERENCE_RECORD)["cheap"].reference == "ref"
        path = tmp_path / "ref.jsonl"
        path.write_text(
            "".join(
                json.dumps(v.model_dump(include={"item_id", "model", "check_id", "passed"})) + "\n"
                for v in _verdicts("ref")
            )
        )
        gold = load_reference_verdicts(path, store)
        from_file = reference_agreement(store, "cheap", reference_verdicts=gold, b=B, save=False)
    assert from_file.reference == "file:ref.jsonl"
    assert from_file.agreement == stored.agreement and from_file.ranking == stored.ranking
    with _run(tmp_path) as store, pytest.raises(InputError, match="no verdicts by reference"):
        reference_agreement(store, "cheap", "gpt-9")


def test_a_bad_reference_file_names_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "ref.jsonl"
    path.write_text(
        '{"item_id": "i1", "model": "A", "check_id": "c1", "passed": true}\n'
        '{"item_id": "i1", "model": "Z", "check_id": "c1", "passed": true}\n'
    )
    with _run(tmp_path) as store, pytest.raises(InputError) as err:
        load_reference_verdicts(path, store)
    assert err.value.line == 2 and err.value.field == "model"


# -- the published FB-Bench verdicts ------------------------------------------------------------

needs_data = pytest.mark.skipif(not PUBLISHED.is_dir(), reason="shared FB-Bench data absent")


@needs_data
def test_published_reference_scores_are_the_published_record_scores(tmp_path: Path) -> None:
    """Against itself the reference agrees fully; its model scores are the mean of the
    records' own published `score` fields (a failed judgment scores 0), read independently."""
    store = published_run(tmp_path)
    copy = [v.model_copy(update={"judge": "copy"}) for v in store.verdicts(GPT4O)]
    store.put_verdicts(copy)
    result = reference_agreement(store, "copy", GPT4O, b=50)
    assert result.agreement.agreement.value == 1.0 and result.agreement.only_judge == 0
    failed = sum(v.passed is None for v in copy)  # the one failed judgment's checks
    assert failed > 0 and result.agreement.gold_missing == failed
    assert result.agreement.unscored == 0
    ranking = result.ranking
    assert ranking.items == 591 and ranking.responses == 6 * 591
    assert ranking.spearman.value == pytest.approx(1.0)
    published: dict[str, list[float]] = {}
    for path in sorted(PUBLISHED.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            published.setdefault(record["infer_model"], []).append(record["score"])
    for model in ranking.models:
        scores = published[model.model]
        assert model.reference.value == pytest.approx(100 * sum(scores) / len(scores), abs=0.05)
        assert model.shift.value == 0.0


@needs_data
@pytest.mark.slow
def test_embedded_log_prob_judge_against_gpt4o(tmp_path: Path) -> None:
    store, judge, sample = embedded_sample()
    result = reference_agreement(store, judge, GPT4O, b=B, save=False)
    own = store.verdicts(judge)
    gold = {(v.item_id, v.model, v.check_id): v.passed for v in store.verdicts(GPT4O)}
    same = [gold[(v.item_id, v.model, v.check_id)] == v.passed for v in own]
    assert result.agreement.n == len(own) and result.agreement.only_judge == 0
    assert result.agreement.only_reference == len(gold) - len(own)
    assert result.agreement.agreement.value == pytest.approx(sum(same) / len(same))
    assert result.ranking.items == len(sample.items) and result.ranking.responses == len(
        sample.models
    ) * len(sample.items)
    assert sorted(m.model for m in result.ranking.models) == sorted(sample.models)
