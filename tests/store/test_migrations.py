"""A store of each earlier layout, kept as a SQL text dump, opens migrated and reads back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.store import STORE_FILE, RunStore
from checkbench.store.layout import MIGRATIONS, SCHEMA_VERSION

FIXTURES = Path(__file__).parent / "fixtures"


def _stored(tmp_path: Path, version: int) -> Path:
    """A run directory holding the fixture store of `version`."""
    run_dir = tmp_path / f"v{version}"
    run_dir.mkdir()
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        db.executescript((FIXTURES / f"v{version}.sql").read_text(encoding="utf-8"))
    return run_dir


def test_the_steps_chain_up_to_this_layout() -> None:
    assert [step.source for step in MIGRATIONS[1:]] == [step.target for step in MIGRATIONS[:-1]]
    assert MIGRATIONS[-1].target == SCHEMA_VERSION
    assert len({step.name for step in MIGRATIONS}) == len(MIGRATIONS)


@pytest.mark.parametrize("step", MIGRATIONS, ids=lambda step: step.name)
def test_a_store_of_each_step_opens_migrated_with_every_row(tmp_path: Path, step) -> None:
    run_dir = _stored(tmp_path, step.source)
    with RunStore.existing(run_dir) as store:
        assert store.get_meta("schema_version") == SCHEMA_VERSION
        assert store.damaged_row() is None
        assert [item.id for item in store.items()] == ["q1", "q2"]
        assert [item.checklist[0].weight for item in store.items()] == [None, 1.0]
        answers = {(r.item_id, r.sample): r.content for r in store.responses()}
        assert answers == {("q1", 0): "Seven.", ("q2", 0): "hé"}
        verdicts = store.verdicts("j")
        assert len(verdicts) == 3 and all(v.passed and v.sample == 0 for v in verdicts)
        assert store.sample_verdicts("j")[0][:3] == (0, "m", "all")
        assert '"content":"hé"' in (store.cached_result("key-q2") or "")
        assert store.cached_result("key-judge") is None
        usage = {(row.model, row.role): (row.calls, row.errors) for row in store.usage()}
        assert usage == {("m", "candidate"): (2, 0), ("j", "judge"): (0, 1)}
        assert store.model_identities() == {"m": "openai:m@http://localhost:1/v1"}
        assert list(store.unanswered("m")) == []
        assert store.search_items("seven", ["j"]) == [0]
    with RunStore.existing(run_dir, writer=True) as store:  # a migrated store writes on
        store.put_response(store.responses()[0].model_copy(update={"sample": 1}))
        assert store.count_answered("m", 2) == 3


def test_a_layout_no_step_starts_from_is_refused_in_one_line(tmp_path: Path) -> None:
    run_dir = _stored(tmp_path, MIGRATIONS[0].source)
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    with pytest.raises(InputError, match="layout version 2 is not this checkbench's") as err:
        RunStore.existing(run_dir)
    assert "\n" not in str(err.value)
