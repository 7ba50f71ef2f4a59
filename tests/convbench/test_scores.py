"""Conv-to-Bench scoring on hand-built runs whose answers are known: the two check modes,
unscored verdicts, intervals, and rank correlation with a reference leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from checkbench import api
from checkbench.convbench.rank_agreement import kendall_tau_b, load_reference, spearman
from checkbench.convbench.scoring import restrict_checks
from checkbench.errors import InputError
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore
from tests.conftest import run_cli

JUDGE = "openai:judge"
SOURCES = {
    "i1": ["instruction", "instruction", "feedback:2"],
    "i2": ["instruction", "feedback:4"],
    "i3": ["feedback:2"],
}
# model -> item -> verdict per check (None: unscored)
VERDICTS: dict[str, dict[str, list[bool | None]]] = {
    "openai:alpha": {"i1": [True, True, True], "i2": [True, True], "i3": [True]},
    "openai:beta": {"i1": [True, False, True], "i2": [True, False], "i3": [False]},
    "openai:gamma": {"i1": [False, False, False], "i2": [False, False], "i3": [False]},
    "openai:delta": {"i1": [True, True, False], "i2": [False, None], "i3": [True]},
}


def _expected(model: str, mode: str) -> float | None:
    """Mean over items of the mean of the mode's checks; items with an unscored check or
    without such checks are left out."""
    means = []
    for item, sources in SOURCES.items():
        marks = [
            mark
            for mark, source in zip(VERDICTS[model][item], sources, strict=True)
            if mode == "all" or source == "instruction"
        ]
        if marks and None not in marks:
            means.append(sum(marks) / len(marks))
    return round(100 * sum(means) / len(means), 2) if means else None


@pytest.fixture
def run(tmp_path: Path) -> Path:
    with RunStore(tmp_path / "run") as store:
        store.add_items(
            Item(
                id=item,
                messages=[Message(role="user", content=f"task {item}")],
                checklist=[
                    Check(id=f"c{n}", text=f"check {n}", source=source)
                    for n, source in enumerate(sources, start=1)
                ],
            )
            for item, sources in SOURCES.items()
        )
        for model, items in VERDICTS.items():
            for item, marks in items.items():
                store.put_response(Response(item_id=item, model=model, content="answer"))
                store.put_verdicts(
                    Verdict(
                        item_id=item,
                        model=model,
                        judge=JUDGE,
                        check_id=f"c{n}",
                        passed=mark,
                    )
                    for n, mark in enumerate(marks, start=1)
                )
    return tmp_path / "run"


@pytest.mark.parametrize("mode", ["instruction", "all"])
def test_scores_are_means_over_instructions_of_check_means(run: Path, mode: str) -> None:
    scores = api.score(run, checks=mode).scores  # type: ignore[arg-type]
    got = {row.model: row.score for row in scores.models}
    assert got == {model: _expected(model, mode) for model in VERDICTS}
    assert [row.model for row in scores.models][0] == "openai:alpha"
    assert scores.items == (2 if mode == "instruction" else 3)
    assert scores.items_without_checks == (1 if mode == "instruction" else 0)
    delta = next(row for row in scores.models if row.model == "openai:delta")
    # delta's unscored verdict is on a feedback check: it only counts in mode "all".
    assert delta.unscored == (1 if mode == "all" else 0)
    for row in scores.models:
        assert row.ci is not None and row.ci[0] <= row.score <= row.ci[1]
    assert api.score(run, checks=mode).scores == scores  # seeded bootstrap  # type: ignore[arg-type]


def test_unscored_items_can_count_as_zero(run: Path) -> None:
    zero = {r.model: r.score for r in api.score(run, policy="zero").scores.models}
    # delta: i1 2/3, i2 unscored -> 0, i3 1.
    assert zero["openai:delta"] == round(100 * (2 / 3 + 0 + 1) / 3, 2)


def test_weighted_items_renormalise_the_kept_weights() -> None:
    item = Item(
        id="w",
        messages=[Message(role="user", content="x")],
        rule="weighted",
        checklist=[
            Check(id="a", text="a", weight=0.2, source="instruction"),
            Check(id="b", text="b", weight=0.6, source="feedback:2"),
            Check(id="c", text="c", weight=0.2, source="instruction"),
        ],
    )
    kept = restrict_checks(item, "instruction")
    assert kept is not None
    assert [(c.id, c.weight) for c in kept.checklist] == [("a", 0.5), ("c", 0.5)]
    assert restrict_checks(item, "all") is item


def _reference(path: Path, scores: dict[str, float]) -> Path:
    path.write_text(json.dumps(scores))
    return path


def test_a_ranking_that_matches_the_reference_correlates_perfectly(
    run: Path, tmp_path: Path
) -> None:
    reference = _reference(tmp_path / "ref.json", {"alpha": 90, "beta": 50, "gamma": 10})
    agreement = api.score(run, reference=reference).scores.reference
    assert agreement is not None
    assert agreement.models == {
        "openai:alpha": "alpha",
        "openai:beta": "beta",
        "openai:gamma": "gamma",
    }
    assert agreement.unmatched_run == ["openai:delta"]
    assert agreement.spearman.value == pytest.approx(1.0)
    assert agreement.kendall_tau_b.value == pytest.approx(1.0)
    assert agreement.spearman.n == 3
    reversed_ = _reference(tmp_path / "rev.json", {"alpha": 10, "beta": 50, "gamma": 90})
    flipped = api.score(run, reference=reversed_).scores.reference
    assert flipped is not None
    assert flipped.spearman.value == pytest.approx(-1.0)
    assert flipped.kendall_tau_b.value == pytest.approx(-1.0)
    low, high = flipped.kendall_tau_b.low, flipped.kendall_tau_b.high
    assert low is not None and high is not None and -1.0 <= low <= high <= 1.0


def test_one_swap_among_four_models() -> None:
    # Ranks 1 2 3 4 against 1 3 2 4: sum d^2 = 2, rho = 1 - 6*2 / (4*15) = 0.8;
    # 6 pairs, 5 concordant, 1 discordant: tau = 4/6.
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)


def test_correlations_with_ties_agree_with_scipy() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        x = rng.integers(0, 4, size=8).astype(float)
        y = rng.integers(0, 4, size=8).astype(float)
        if len(set(x)) == 1 or len(set(y)) == 1:
            continue
        assert spearman(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic)
        assert kendall_tau_b(x, y) == pytest.approx(scipy_stats.kendalltau(x, y).statistic)


def test_reference_files_in_json_and_csv(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"model": "a", "score": 1}, {"model": "b", "score": "2.5"}]))
    assert load_reference(listed) == {"a": 1.0, "b": 2.5}
    table = tmp_path / "board.csv"
    table.write_text("Model,Score,votes\na,71.2,10\nb,65,3\n")
    assert load_reference(table) == {"a": 71.2, "b": 65.0}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("model,score\na,1\nb,high\n", ":3: field 'score'"),
        ("name,value\na,1\n", ":1"),
        ('{"a": 1, "b": null}', "field 'b.score'"),
        ('[{"model": "a", "score": 1}, {"score": 2}]', "field '1.model'"),
        ('{"a": 1}', "at least two models"),
        ("model,score\na,1\na,2\n", "listed twice"),
    ],
)
def test_bad_reference_files_are_located(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "reference"  # JSON or CSV is told by the content, not the name
    path.write_text(text)
    with pytest.raises(InputError, match=where):
        load_reference(path)


def test_score_command_prints_json_and_rejects_bad_input(run: Path, tmp_path: Path) -> None:
    result = run_cli("convbench", "score", str(run), "--checks", "instruction", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["checks"] == "instruction"
    assert {m["model"]: m["score"] for m in data["models"]}["openai:beta"] == _expected(
        "openai:beta", "instruction"
    )
    reference = _reference(tmp_path / "ref.json", {"alpha": 3, "beta": 2, "gamma": 1})
    table = run_cli("convbench", "score", str(run), "--reference", str(reference))
    assert table.returncode == 0, table.stderr
    assert "Spearman" in table.stdout and "Kendall" in table.stdout
    missing = run_cli("convbench", "score", str(run), "--reference", str(tmp_path / "none.csv"))
    assert missing.returncode == 2 and "file not found" in missing.stderr
    alone = _reference(tmp_path / "alone.json", {"alpha": 3, "omega": 1})
    unmatched = run_cli("convbench", "score", str(run), "--reference", str(alone))
    assert unmatched.returncode == 2 and "fewer than two" in unmatched.stderr


def _mixed_run(path: Path) -> RunStore:
    """A store of every case a Conv-to-Bench score meets, drawn from a seeded generator:
    each rule, weights that rescale to awkward fractions, feedback-only and empty checklists,
    several samples, unscored, missing and stray verdicts."""
    rng = np.random.default_rng(7)
    store = RunStore(path)
    items = []
    for n in range(40):
        rule = ("mean", "weighted", "any", "all")[n % 4]
        size = int(rng.integers(0 if rule != "weighted" else 1, 5))
        weights = rng.dirichlet(np.ones(size)).tolist() if size else []
        weights[-1:] = [1.0 - sum(weights[:-1])] if size else []
        checks = [
            Check(
                id=f"c{k}",
                text=f"check {k}",
                weight=weights[k] if rule == "weighted" else None,
                source=str(rng.choice(["instruction", "feedback:2"])),
            )
            for k in range(size)
        ]
        items.append(
            Item(
                id=f"i{n}",
                messages=[Message(role="user", content="x")],
                checklist=checks,
                rule=rule,
            )
        )
    store.add_items(items)
    for model, samples in (("openai:a", 1), ("openai:b", 2), ("openai:c", 1)):
        for item in items:
            for sample in range(samples):
                store.put_response(Response(item_id=item.id, model=model, sample=sample))
                marks = [rng.choice([True, False, True, None, "missing"]) for _ in item.checklist]
                verdicts = [
                    Verdict(
                        item_id=item.id,
                        model=model,
                        sample=sample,
                        judge=JUDGE,
                        check_id=check.id,
                        passed=None if mark is None else bool(mark),
                    )
                    for check, mark in zip(item.checklist, marks, strict=True)
                    if mark != "missing"
                ]
                if item.id == "i5":  # a verdict on a check the item does not have
                    verdicts.append(
                        Verdict(item_id="i5", model=model, judge=JUDGE, check_id="zz", passed=True)
                    )
                store.put_verdicts(verdicts)
    return store


@pytest.mark.parametrize("mode", ["instruction", "all"])
@pytest.mark.parametrize("policy", ["zero", "exclude"])
def test_scores_read_in_columns_equal_the_scores_of_the_objects(
    tmp_path: Path, mode: str, policy: str
) -> None:
    from checkbench.convbench.scoring import bench_scores, store_bench_scores

    reference = {"openai:a": 50.0, "openai:b": 40.0, "openai:c": 45.0}
    with _mixed_run(tmp_path / "run") as store:
        columns = store_bench_scores(
            store, JUDGE, checks=mode, policy=policy, reference=reference, b=200
        )
        objects = bench_scores(
            store.items(),
            store.responses(),
            store.verdicts(JUDGE),
            judge=JUDGE,
            checks=mode,
            policy=policy,
            reference=reference,
            b=200,
        )
    assert columns == objects
    assert [row.samples for row in columns.models] != [1, 1, 1]
    assert sum(row.unscored for row in columns.models) > 0
    assert columns.items_without_checks > 0
