"""Slices select items by position, file, tags and a seeded sample stratified as the protocol
scores; a run and a judge record what they cover, and a slice that would leave some of it out
is refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.schema import Item, Response, Verdict
from checkbench.steps.slices import Slice, claim_judge, run_scope, stratified_sample
from checkbench.store import RunStore
from checkbench.store.scope import RUN_SCOPE, SCOPES


def _pairs() -> list[tuple[str, dict[str, list[str]]]]:
    """200 FB-Bench-like items in unequal strata: EC/Coding 100, EC/Maths 50, RM/Coding 30,
    RM/Maths 20, interleaved."""
    sizes = {("EC", "Coding"): 100, ("EC", "Maths"): 50, ("RM", "Coding"): 30, ("RM", "Maths"): 20}
    pairs = []
    for (scenario, task), size in sizes.items():
        pairs += [
            (f"{scenario}-{task}-{k}", {"scenario": [scenario], "task": [task]})
            for k in range(size)
        ]
    return sorted(pairs, key=lambda pair: int(pair[0].rsplit("-", 1)[1]))


def _stratum(item_id: str) -> str:
    return item_id.rsplit("-", 1)[0]


def test_a_sample_is_stratified_by_scenario_and_task_and_seeded() -> None:
    pairs = _pairs()
    first = Slice(sample=40, sample_seed=1).select(pairs)
    assert len(first) == len(set(first)) == 40
    counts = Counter(_stratum(item_id) for item_id in first)
    # each stratum its proportional share of 40 out of 200
    assert counts == {"EC-Coding": 20, "EC-Maths": 10, "RM-Coding": 6, "RM-Maths": 4}
    order = [item_id for item_id, _ in pairs]
    assert first == sorted(first, key=order.index)  # kept in the benchmark's order
    assert Slice(sample=40, sample_seed=1).select(pairs) == first  # seeded
    assert Slice(sample=40, sample_seed=2).select(pairs) != first
    assert Counter(_stratum(i) for i in Slice(sample=40, sample_seed=2).select(pairs)) == counts


def test_scenarios_keep_their_share_when_every_task_holds_one_item() -> None:
    pairs = [
        (f"{scenario}{k}", {"scenario": [scenario], "task": [f"t{k}"]})
        for scenario in ("EC", "RM")
        for k in range(4)
    ]
    picks = {tuple(Slice(sample=4, sample_seed=seed).select(pairs)) for seed in range(10)}
    assert len(picks) > 1  # the remainders go to tasks drawn with the seed
    for pick in picks:
        assert Counter(item_id[:2] for item_id in pick) == {"EC": 2, "RM": 2}


def test_items_without_strata_are_sampled_as_one_stratum() -> None:
    pairs = [(f"i{k}", {}) for k in range(50)]
    chosen = stratified_sample(pairs, 10, seed=3)
    assert len(chosen) == 10 and chosen == sorted(chosen, key=pairs.index)
    assert stratified_sample(pairs, 60, seed=3) == pairs


def test_limit_tags_and_items_file(tmp_path: Path) -> None:
    pairs = _pairs()
    assert Slice(limit=3).select(pairs) == [item_id for item_id, _ in pairs[:3]]
    ec_maths = Slice(tags=("scenario=EC", "task=Maths")).select(pairs)
    assert len(ec_maths) == 50 and all(_stratum(i) == "EC-Maths" for i in ec_maths)
    maths = Slice(tags=("task=Maths", "task=Coding", "scenario=RM")).select(pairs)
    assert len(maths) == 50  # values of one facet: any; facets: all
    listed = tmp_path / "ids.txt"
    listed.write_text(
        'RM-Maths-3\n\n{"id": "EC-Coding-0"}\n"EC-Maths-7"\n{"item_id": "RM-Coding-1"}\n'
    )
    assert Slice(items_file=listed).select(pairs) == [
        "EC-Coding-0",
        "RM-Coding-1",
        "RM-Maths-3",
        "EC-Maths-7",
    ]
    assert Slice(items_file=listed, limit=1).select(pairs) == ["EC-Coding-0"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: Slice(limit=-1), "field '--limit': must be 0 or more, got -1"),
        (lambda p: Slice(limit=1, sample=2), "give --limit or --sample, not both"),
        (lambda p: Slice(tags=("task",)), "expected FACET=VALUE"),
        (lambda p: Slice(tags=("=x",)), "expected FACET=VALUE"),
        (
            lambda p: Slice(tags=("colour=red",)).select(_pairs()),
            "no item has the tag facet 'colour'",
        ),
        (lambda p: Slice(items_file=p / "none.txt").select(_pairs()), "file not found"),
        (lambda p: Slice(items_file=p / "ids.txt").select(_pairs()), "ids.txt:2: no item 'nope'"),
    ],
)
def test_bad_slices_are_one_located_line(tmp_path: Path, make, message: str) -> None:
    (tmp_path / "ids.txt").write_text("EC-Maths-1\nnope\n")
    with pytest.raises(InputError) as caught:
        make(tmp_path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def _item(item_id: str) -> Item:
    return Item.model_validate(
        {
            "id": item_id,
            "messages": [{"role": "user", "content": f"question {item_id}"}],
            "checklist": [{"id": "c1", "text": "says yes"}],
            "tags": {"task": ["Maths" if item_id < "i3" else "Coding"]},
        }
    )


def _run(tmp_path: Path, ids: list[str], models: tuple[str, ...] = ("a", "b")) -> RunStore:
    store = RunStore(tmp_path / "run")
    store.add_items(_item(i) for i in ids)
    for item_id in ids:
        for model in models:
            store.put_response(Response(item_id=item_id, model=model, content="yes"))
    return store


def test_a_run_takes_the_same_or_a_wider_slice_and_refuses_a_narrower_one(tmp_path: Path) -> None:
    with _run(tmp_path, ["i0", "i1", "i2"]) as store:
        same = run_scope(store, ["i0", "i1", "i2"], Slice(limit=3))
        assert same.item_ids == ["i0", "i1", "i2"] and same.spec == "--limit 3"
        store.put_record(SCOPES, RUN_SCOPE, same)
        assert run_scope(store, ["i0", "i1", "i2", "i3"], Slice(limit=4)).item_ids is not None
        with pytest.raises(
            InputError, match=r"holds 2 item\(s\) outside this slice \('i1', 'i2'\)"
        ):
            run_scope(store, ["i0", "i3"], Slice(items_file=Path("x")))
        assert store.scope(RUN_SCOPE) == same  # unchanged


def _judge(store: RunStore, judge: str, ids: list[str]) -> None:
    store.put_verdicts(
        Verdict(item_id=i, model=m, judge=judge, check_id="c1", passed=True)
        for i in ids
        for m in ("a", "b")
    )


def test_a_judge_judges_and_is_scored_on_its_slice(tmp_path: Path) -> None:
    with _run(tmp_path, ["i0", "i1", "i2", "i3", "i4"]) as store:
        scope = claim_judge(store, "j", Slice(tags=("task=Maths",), models=("a",)))
        assert (scope.item_ids, scope.models) == (["i0", "i1", "i2"], ["a"])
        assert store.count_judgeable("j") == (3, 3)
        assert sorted((r.item_id, r.model) for _, r, _ in store.unjudged("j")) == [
            ("i0", "a"),
            ("i1", "a"),
            ("i2", "a"),
        ]
        _judge(store, "j", ["i0", "i1", "i2", "i3", "i4"])
        assert len(store.sample_verdicts("j")) == 3  # scored on its slice only
        # the same slice again, a wider one: fine; a narrower or different one: refused
        claim_judge(store, "j", Slice(tags=("task=Maths",), models=("a",)))
        claim_judge(store, "j", Slice(tags=("task=Maths",)))
        assert len(store.sample_verdicts("j")) == 6
        with pytest.raises(InputError, match=r"judge j covers 2 item\(s\) or model\(s\)"):
            claim_judge(store, "j", Slice(limit=1))
        with pytest.raises(InputError, match="no model 'c' in this run"):
            claim_judge(store, "j", Slice(models=("c",)))
        claim_judge(store, "j", Slice())  # the whole run: its verdicts all count again
        assert store.judge_scope("j").whole and len(store.sample_verdicts("j")) == 10


def test_a_judge_that_judged_the_whole_run_refuses_a_slice(tmp_path: Path) -> None:
    with _run(tmp_path, ["i0", "i1"]) as store:
        _judge(store, "j", ["i0", "i1"])
        with pytest.raises(InputError, match="narrower or different slice"):
            claim_judge(store, "j", Slice(limit=1))
        assert claim_judge(store, "j", Slice(limit=5)).whole  # selects every item
