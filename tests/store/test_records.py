"""Record kinds: typed stage outputs, one kind per name, validated when read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.store import RecordKind, RunStore


class Tally(BaseModel):
    seen: int
    note: str | None = None


TALLY = RecordKind("test_records.tally", Tally)


def test_a_name_is_declared_once() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        RecordKind("test_records.tally", dict)


def test_records_read_back_as_their_model_in_order(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.put_record(TALLY, "b", Tally(seen=2, note="é"))
        store.put_record(TALLY, "a", Tally(seen=1))
        assert store.records(TALLY) == {"b": Tally(seen=2, note="é"), "a": Tally(seen=1)}
        assert store.records(TALLY, only="a") == {"a": Tally(seen=1)}
        (body,) = store._db.execute(  # the JSON stays what it was: same kind name, same fields
            "SELECT body FROM records WHERE kind = ? AND key = 'b'", (TALLY.name,)
        ).fetchone()
    assert json.loads(body) == {"seen": 2, "note": "é"}


def _break(store: RunStore) -> None:
    with store.transaction() as db:
        db.execute(
            "INSERT INTO records(kind, key, body) VALUES (?, 'c', ?)",
            (TALLY.name, '{"seen": "many"}'),
        )


def test_a_damaged_record_is_named_in_one_line(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        _break(store)
    with pytest.raises(InputError) as err, RunStore.existing(tmp_path) as store:
        store.records(TALLY)
    message = str(err.value)
    assert "damaged row test_records.tally/c of table records (seen:" in message
    assert "\n" not in message


def test_a_reader_may_leave_unreadable_records_out(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.put_record(TALLY, "a", Tally(seen=1))
        _break(store)
        problems: list[str] = []
        assert store.records(TALLY, unreadable=problems) == {"a": Tally(seen=1)}
    assert problems == [
        "test_records.tally record 'c' is not readable (seen: Input should be a valid integer,"
        " unable to parse string as an integer)"
    ]
