"""A response's verdicts land whole, as many as its checklist has: one statement for an
ordinary checklist, a savepoint around many statements past `ROWS_PER_STATEMENT`; a second
write replaces them, and every one reads back as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore
from checkbench.store.rows import ROWS_PER_STATEMENT


@pytest.mark.parametrize("checks", [1, 4, ROWS_PER_STATEMENT, ROWS_PER_STATEMENT + 37])
def test_every_verdict_of_a_checklist_is_stored_and_replaced(tmp_path: Path, checks: int) -> None:
    item = Item(
        id="q",
        messages=[Message(role="user", content="q")],
        checklist=[Check(id=f"c{k}", text=f"check {k}") for k in range(checks)],
    )

    def verdicts(passed: bool | None) -> list[Verdict]:
        return [
            Verdict(item_id="q", model="m", judge="j", check_id=c.id, passed=passed, reason=r)
            for c, r in zip(item.checklist, (f"why {k}" for k in range(checks)), strict=True)
        ]

    with RunStore(tmp_path) as store:
        store.add_items([item])
        store.put_response(Response(item_id="q", model="m", content="a"))
        store.put_verdicts(verdicts(None))
        store.put_verdicts(verdicts(True))
        stored = sorted(store.verdicts("j"), key=lambda v: int(v.check_id[1:]))
    assert stored == verdicts(True)
    with RunStore.existing(tmp_path) as reopened:
        assert reopened.verdict_counts("j") == (checks, 0)
