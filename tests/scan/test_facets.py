"""Navigation over the tag hierarchy items already carry (`--facets task,subtask`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.scan.facets import facet_taxonomy
from checkbench.scan.navigation import navigate
from checkbench.schema import Item, Message
from tests.conftest import ROOT, run_cli

JUDGMENTS = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"


def _item(item_id: str, **tags: list[str]) -> Item:
    return Item(id=item_id, messages=[Message(role="user", content="q")], checklist=[], tags=tags)


def test_facet_values_become_levels_and_items_sit_at_their_chains() -> None:
    items = [
        _item("a", task=["Coding"], subtask=["Debugging", "Generation"]),
        _item("b", task=["Coding"], subtask=["Generation"]),
        _item("c", task=["Maths/Logic"]),
        _item("d"),
    ]
    tree, tags = facet_taxonomy(items, ["task", "subtask"])
    assert [d.name for d in tree.domains] == ["Coding", "Maths/Logic"]  # names kept as given
    assert [c.name for c in tree.domains[0].children] == ["Debugging", "Generation"]
    assert tags == {
        "a": ["Coding/Debugging", "Coding/Generation"],
        "b": ["Coding/Generation"],
        "c": ["Maths\\/Logic"],
        "d": [],
    }
    scores = {"m1": {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.5}}
    nav = navigate(scores, tags, taxonomy=tree)
    assert {cell.path for cell in nav.nodes} >= {"Coding", "Coding/Generation", "Maths\\/Logic"}


def test_no_facet_or_no_values_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="at least one facet"):
        facet_taxonomy([_item("a", task=["x"])], [])
    with pytest.raises(InputError, match="no item has a value for facet 'domain'"):
        facet_taxonomy([_item("a", task=["x"])], ["domain"])


@pytest.mark.skipif(not JUDGMENTS.is_dir(), reason="FB-Bench released files absent")
def test_published_results_navigate_by_task_and_subtask(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    imported = run_cli("import", "fb-bench-judgments", str(JUDGMENTS), "--run", str(run_dir))
    assert imported.returncode == 0, imported.stderr
    result = run_cli("scan", "navigate", str(run_dir), "--facets", "task,subtask", "--json")
    assert result.returncode == 0, result.stderr
    nav = json.loads(result.stdout)
    assert len(nav["models"]) == 6
    paths = {node["path"] for node in nav["nodes"]}
    assert "Coding" in paths and any(path.startswith("Coding/") for path in paths)
    # with 6 models a rank shift is at most 5: the paper's threshold 5 can flag nothing, and
    # the looser rules show how many rank shifts there are at all
    counts = {(c["rule"]["threshold"], c["rule"]["level"]): c for c in nav["rule_counts"]}
    strict, loosest = counts[5.0, 0.95], counts[0.0, None]
    assert sum(strict["strengths"].values()) == sum(strict["weaknesses"].values()) == 0
    assert sum(loosest["strengths"].values()) > 0 and sum(loosest["weaknesses"].values()) > 0
    neither = run_cli("scan", "navigate", str(run_dir))
    assert neither.returncode == 2 and "taxonomy file or tag facets" in neither.stderr
