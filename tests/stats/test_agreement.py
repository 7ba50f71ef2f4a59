"""Agreement statistics against values worked out by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from checkbench.errors import InputError
from checkbench.schema import Verdict
from checkbench.stats.agreement import (
    agreement,
    confusion_table,
    krippendorff_alpha,
    verdict_agreement,
)

# 10 units: gold1/judge1 4, gold1/judge0 2, gold0/judge1 1, gold0/judge0 3
GOLD = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
JUDGE = [1, 1, 1, 1, 0, 0, 1, 0, 0, 0]


def test_binary_statistics_by_hand() -> None:
    result = agreement(GOLD, JUDGE, b=200)
    assert (result.n, result.gold_positive, result.gold_negative, result.unscored) == (10, 6, 4, 0)
    assert result.agreement.value == pytest.approx(0.7)
    # p_o = .7; p_e = .6 * .5 + .4 * .5 = .5; kappa = .2 / .5
    assert result.kappa.value == pytest.approx(0.4)
    # N = 20 values; n_1 = 2*4 + 3 = 11, n_0 = 2*3 + 3 = 9; 3 disagreeing units
    assert result.alpha.value == pytest.approx(1 - 19 * 3 / (9 * 11))
    assert result.sensitivity.value == pytest.approx(4 / 6)
    assert result.specificity.value == pytest.approx(3 / 4)
    assert result.positive_f1.value == pytest.approx(2 * 4 / (5 + 6))
    assert result.negative_f1.value == pytest.approx(2 * 3 / (5 + 4))
    assert result.mcc.value == pytest.approx((4 * 3 - 2 * 1) / np.sqrt(5 * 5 * 6 * 4))
    for stat in (result.agreement, result.kappa, result.alpha, result.mcc):
        assert stat.low <= stat.value <= stat.high


def test_unscored_is_wrong_and_missing_gold_is_left_out() -> None:
    # an 11th unit gold 1 / judge unscored; a 12th unit without gold
    result = agreement([*GOLD, 1, None], [*JUDGE, None, 1], b=50)
    assert (result.n, result.unscored, result.gold_missing) == (11, 1, 1)
    assert result.agreement.value == pytest.approx(7 / 11)
    # p_o = 7/11; p_e = (7*5 + 4*5) / 121 = 5/11 (no gold is unscored); kappa = (2/11) / (6/11)
    assert result.kappa.value == pytest.approx(1 / 3)
    assert result.alpha.value == pytest.approx(1 - 19 * 3 / (9 * 11))  # unit is unpairable
    assert result.alpha.n == 10
    assert result.sensitivity.value == pytest.approx(4 / 7)  # the unscored gold positive missed
    assert result.specificity.value == pytest.approx(3 / 4)
    assert result.positive_f1.value == pytest.approx(2 * 4 / (5 + 7))
    assert result.negative_f1.value == pytest.approx(2 * 3 / (5 + 4))  # not a negative prediction


def _alpha_by_definition(units: list[tuple[int | None, int | None]]) -> float:
    """Krippendorff's alpha from its coincidence-matrix definition (any number of values)."""
    coincidence = np.zeros((2, 2))
    for unit in units:
        values = [v for v in unit if v is not None]
        for c, k in itertools.permutations(range(len(values)), 2):
            coincidence[values[c], values[k]] += 1 / (len(values) - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    observed = coincidence[0, 1] + coincidence[1, 0]
    expected = 2 * n_c[0] * n_c[1] / (n - 1)
    return 1 - observed / expected


def test_alpha_matches_its_definition_with_missing_values() -> None:
    rng = np.random.default_rng(7)
    gold = rng.integers(0, 2, 60).tolist()
    judged = [None if rng.random() < 0.2 else int(g if rng.random() < 0.8 else 1 - g) for g in gold]
    table = confusion_table(gold, judged)
    assert float(krippendorff_alpha(table)) == pytest.approx(
        _alpha_by_definition(list(zip(gold, judged, strict=True)))
    )


def test_undefined_statistics_are_none() -> None:
    result = agreement([1, 1, 1], [1, 1, 1], b=20)
    assert result.agreement.value == 1.0
    assert result.kappa.value is None and result.alpha.value is None
    assert result.specificity.model_dump() == {
        "value": None,
        "low": None,
        "high": None,
        "n": 0,
        "why": "a constant judge",  # every check judged a pass
        "resampled": 3,  # each check its own cluster
    }
    assert result.specificity.units == 0 and result.agreement.units == 3
    assert result.negative_f1.value == 0.0 and result.mcc.value == 0.0  # released conventions


def test_bootstrap_resamples_clusters() -> None:
    one_cluster = agreement(GOLD, JUDGE, ["item"] * len(GOLD), b=100)
    assert one_cluster.clusters == 1
    assert one_cluster.agreement.value == pytest.approx(0.7)
    assert one_cluster.agreement.low is None and one_cluster.agreement.high is None  # n too small
    per_unit = agreement(GOLD, JUDGE, b=100)
    assert per_unit.agreement.low < 0.7 < per_unit.agreement.high
    with pytest.raises(ValueError):
        agreement(GOLD, JUDGE[:-1])


def _verdicts(judge: str, passed: dict[tuple[str, str], bool | None]) -> list[Verdict]:
    return [
        Verdict(item_id=item, model="m", judge=judge, check_id=check, passed=value)
        for (item, check), value in passed.items()
    ]


def test_human_vs_judge_verdicts() -> None:
    human = _verdicts(
        "human",
        {
            ("i1", "c1"): True,
            ("i1", "c2"): False,
            ("i2", "c1"): True,
            ("i2", "c2"): None,
            ("i3", "c1"): True,
        },
    )
    judge = _verdicts(
        "gpt",
        {
            ("i1", "c1"): True,
            ("i1", "c2"): True,
            ("i2", "c1"): None,
            ("i2", "c2"): False,
            ("i4", "c1"): False,
        },
    )
    result = verdict_agreement(human, judge, b=50)
    # shared keys: i1/c1 agree, i1/c2 disagree, i2/c1 unscored by judge, i2/c2 no human label
    assert (result.only_reference, result.only_judge) == (1, 1)
    assert (result.n, result.unscored, result.gold_missing, result.clusters) == (3, 1, 1, 2)
    assert result.agreement.value == pytest.approx(1 / 3)
    assert result.positive_f1.value == pytest.approx(2 * 1 / (2 + 2))
    with pytest.raises(InputError, match="two judge verdicts"):
        verdict_agreement(human, judge + judge[:1])


def test_kappa_and_balanced_accuracy_match_sklearn() -> None:
    from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score

    rng = np.random.default_rng(3)
    for _ in range(20):
        gold = rng.integers(0, 2, 40).tolist()
        judged = [g if rng.random() < 0.7 else 1 - g for g in gold]
        result = agreement(gold, judged, b=10)
        assert result.kappa.value == pytest.approx(cohen_kappa_score(gold, judged))
        assert result.balanced_accuracy.value == pytest.approx(
            balanced_accuracy_score(gold, judged)
        )
        assert result.base_rate == pytest.approx(np.mean(gold))
        assert result.judged_positive == sum(judged)


def test_a_constant_judge_has_kappa_0_and_balanced_accuracy_half() -> None:
    gold = [1] * 9 + [0]
    result = agreement(gold, [1] * 10, b=10)
    assert result.agreement.value == pytest.approx(0.9)  # the base rate, not skill
    assert result.kappa.value == pytest.approx(0.0)
    assert result.balanced_accuracy.value == pytest.approx(0.5)
    assert (result.judged_positive, result.judged_negative) == (10, 0)
