"""The label queue's order on a run built by hand: judges that disagree first (most evenly
split first), then uncertain P(yes) (calibrated preferred, closest to 0.5 first), then samples
that disagree, then the rest by item; people's own labels are no signal, failed answers are
not offered."""

from __future__ import annotations

from pathlib import Path

from checkbench.judges.label_queue import (
    JUDGES_DISAGREE,
    REST,
    SAMPLES_DISAGREE,
    UNCERTAIN_P,
    build_queue,
)
from checkbench.judges.reference import CALIBRATION_RECORD
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore

ITEMS = [
    Item(
        id=f"i{n}",
        messages=[Message(role="user", content=f"question {n}")],
        checklist=[Check(id="c1", text="first"), Check(id="c2", text="second")],
    )
    for n in range(6)
]
SAMPLED = ("i4", "B")
"""The one (item, model) answered three times."""
FAILED = ("i5", "B")


def _v(item: str, model: str, judge: str, passed: bool, **kw: object) -> Verdict:
    check = str(kw.pop("check", "c1"))
    return Verdict(item_id=item, model=model, judge=judge, check_id=check, passed=passed, **kw)


def _build(run_dir: Path) -> None:
    responses, verdicts = [], []
    for item in ITEMS:
        for model in ("A", "B"):
            for sample in range(3 if (item.id, model) == SAMPLED else 1):
                failed = (item.id, model) == FAILED
                responses.append(
                    Response(
                        item_id=item.id,
                        model=model,
                        sample=sample,
                        content=None if failed else "answer",
                        error="HTTP 500" if failed else None,
                    )
                )
                if failed:
                    continue
                for check in item.checklist:  # j1 passes everything unless told otherwise
                    verdicts.append(
                        _v(item.id, model, "j1", True, check=check.id, sample=sample, p_yes=0.99)
                    )
    verdicts += [
        _v("i0", "A", "j2", False),  # 1 of 2 pass: evenly split
        _v("i1", "A", "j2", True),
        _v("i1", "A", "j3", False),  # 2 of 3 pass
        _v("i2", "A", "j1", True, p_yes=0.9),
        _v("i2", "A", "j1#calibrated", True, p_yes=0.55),  # speaks for j1: no disagreement
        _v("i3", "A", "j1", True, p_yes=0.49),
        _v("i3", "A", "j1#calibrated", False, p_yes=0.3),  # calibrated, though j1 is closer
        _v("i4", "B", "j1", False, check="c2", sample=1, p_yes=0.2),  # 2 of 3 samples pass
        _v("i5", "A", "human:bob", False),  # a person's label: no signal
    ]
    with RunStore(run_dir) as store:
        store.add_items(ITEMS)
        for response in responses:
            store.put_response(response)
        store.put_verdicts(verdicts)
        store.put_record(CALIBRATION_RECORD, "j1#calibrated", {"judge": "j1"})


def test_queue_offers_disagreement_then_uncertainty_then_samples_then_the_rest(
    tmp_path: Path,
) -> None:
    _build(tmp_path / "run")
    with RunStore.existing(tmp_path / "run") as store:
        queue = build_queue(store)
    # 6 items x 2 models x 2 checks, 2 more samples of i4/B, no check of the failed i5/B answer.
    assert len(queue) == 24 + 4 - 2
    assert all((e.item_id, e.model) != FAILED for e in queue)
    head = [(e.item_id, e.model, e.sample, e.check_id, e.tier, e.reasons) for e in queue[:7]]
    assert head == [
        ("i0", "A", 0, "c1", JUDGES_DISAGREE, ("judges disagree: 1 of 2 pass",)),
        ("i1", "A", 0, "c1", JUDGES_DISAGREE, ("judges disagree: 2 of 3 pass",)),
        ("i2", "A", 0, "c1", UNCERTAIN_P, ("calibrated P(yes) 0.55 by j1#calibrated",)),
        ("i3", "A", 0, "c1", UNCERTAIN_P, ("calibrated P(yes) 0.30 by j1#calibrated",)),
        *[
            ("i4", "B", s, "c2", SAMPLES_DISAGREE, ("samples disagree: 2 of 3 pass by j1",))
            for s in (1, 0, 2)  # the least certain P(yes) first
        ],
    ]
    rest = queue[7:]
    assert {e.tier for e in rest} == {REST}
    assert [e.position for e in rest] == sorted(e.position for e in rest)
    labelled_by_bob = next(e for e in rest if (e.item_id, e.model, e.check_id) == ("i5", "A", "c1"))
    assert labelled_by_bob.reasons == ("P(yes) 0.99 by j1",)


def test_a_run_without_verdicts_is_offered_in_item_order(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        store.add_items(ITEMS[:2])
        for item in ITEMS[:2]:
            store.put_response(Response(item_id=item.id, model="A", content="answer"))
        queue = build_queue(store)
    assert [(e.item_id, e.check_id) for e in queue] == [
        ("i0", "c1"),
        ("i0", "c2"),
        ("i1", "c1"),
        ("i1", "c2"),
    ]
    assert {e.reasons for e in queue} == {("no verdict yet",)}
