"""The protocol registry: every protocol registers under its name, the shared layers find
formats, scorers and API names through it, and a new protocol is one module and one line."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from checkbench import api, registry
from checkbench.benchmarks import detect_format, load_items
from checkbench.choices import ScoringProtocol
from checkbench.registry import BenchmarkFormat, Protocol, RunScorer
from checkbench.schema import Check, Item, Message
from checkbench.store import RunStore

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_each_protocol_is_registered_under_its_package_name() -> None:
    for name, path in registry.PROTOCOLS.items():
        found = registry.protocol(name)
        assert found.name == name and path == f"checkbench.{name}.protocol"
        assert all(hasattr(api, n) for names in found.api.values() for n in names), name
    with pytest.raises(KeyError, match="no protocol 'toy'"):
        registry.protocol("toy")


def test_run_protocol_choices_are_the_registered_scorers() -> None:
    assert list(get_args(ScoringProtocol)) == ["auto", *registry.run_scorers()]


def test_auto_scores_an_fbbench_run_by_fbbench_and_any_other_by_conv_to_bench(
    tmp_path: Path,
) -> None:
    with RunStore(tmp_path / "fb") as store:
        store.add_items(load_items(EXAMPLES / "feedback-mini.jsonl"))
        assert registry.run_scorer(store).name == "fb-bench"
        assert registry.run_scorer(store, "conv-to-bench").command == "convbench score"
    with RunStore(tmp_path / "scan") as store:
        store.add_items(load_items(EXAMPLES / "queries-mini.jsonl"))
        assert registry.run_scorer(store).name == "conv-to-bench"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fifth protocol: one module defining PROTOCOL, one line in the mapping."""

    def load(path: Path) -> list[Item]:
        record = json.loads(path.read_text())
        return [
            Item(
                id=record["toy"],
                messages=[Message(role="user", content=record["ask"])],
                checklist=[Check(id="c1", text="answers")],
            )
        ]

    module = types.ModuleType("toy_protocol")
    module.PROTOCOL = Protocol(
        name="toy",
        title="Toy",
        formats=(BenchmarkFormat("toy", fits=lambda record: "toy" in record, load=load),),
        scorer=RunScorer(name="toy", fits=lambda store: True, score=len, show=print, command="toy"),
    )
    monkeypatch.setitem(sys.modules, "toy_protocol", module)
    monkeypatch.setitem(registry.PROTOCOLS, "toy", "toy_protocol")
    registry.protocol.cache_clear()
    yield
    registry.protocol.cache_clear()


def test_a_fifth_protocol_is_one_module_and_one_line(toy: None, tmp_path: Path) -> None:
    bench = tmp_path / "toy.json"
    bench.write_text(json.dumps({"toy": "t1", "ask": "hello"}))
    assert detect_format(bench) == "toy"
    assert [item.id for item in load_items(bench)] == ["t1"]
    assert registry.run_scorer(None, "toy").command == "toy"
    assert "toy" in registry.run_scorers()
