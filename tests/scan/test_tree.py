"""Taxonomy as data: validated loading with located errors, pure edits, diffs, rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from checkbench.errors import InputError
from checkbench.scan.paths import TaxonomyError, lineage
from checkbench.scan.tree import Move, Node, Taxonomy, diff, load_taxonomy, save_taxonomy, tree_view

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "taxonomy-mini.json"


def tax(spec: dict) -> Taxonomy:
    """A taxonomy from a nested {name: {child: {...}}} dict, descriptions "<name> desc"."""

    def nodes(level: dict) -> list[Node]:
        return [Node(name=k, description=f"{k} desc", children=nodes(v)) for k, v in level.items()]

    return Taxonomy(name="t", domains=nodes(spec))


SMALL = {
    "coding": {"debugging": {"memory": {}, "logic": {}}, "algorithms": {}},
    "writing": {"poetry": {}, "email": {}},
}


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "tax.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# --- loading and validation -------------------------------------------------------------


def test_example_loads_with_paths_leaves_and_depth() -> None:
    t = load_taxonomy(EXAMPLE)
    assert [d.name for d in t.domains] == ["coding", "mathematics", "writing"]
    assert t.find("coding/debugging/runtime errors/memory errors").description.startswith("Leaks")
    assert len(t.leaves()) == 21
    assert "coding/debugging/runtime errors" not in t.leaves()
    assert t.depth() == 4
    assert t.paths()[:3] == [
        "coding",
        "coding/code generation",
        "coding/code generation/algorithms",
    ]


def test_find_normalizes_spacing_and_reports_missing() -> None:
    t = tax(SMALL)
    assert t.find(" coding / debugging ").name == "debugging"
    assert t.has("writing/email") and not t.has("writing/essay")
    with pytest.raises(TaxonomyError, match="no node at 'writing/essay'"):
        t.find("writing/essay/long")
    with pytest.raises(TaxonomyError, match="empty segment"):
        t.find("coding//debugging")


def test_lineage_lists_ancestors_first() -> None:
    assert lineage("a / b/c") == ["a", "a/b", "a/b/c"]
    assert lineage("") == []


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, '{"name": "t",\n "domains": [\n  {"name": "x",}\n]}')
    with pytest.raises(InputError) as info:
        load_taxonomy(path)
    assert info.value.path == str(path)
    assert info.value.line == 3
    assert "malformed JSON" in str(info.value)


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_taxonomy(tmp_path / "absent.json")


def test_missing_name_is_located_by_json_path(tmp_path: Path) -> None:
    data = {"domains": [{"name": "a"}, {"name": "b", "children": [{"description": "no name"}]}]}
    with pytest.raises(InputError) as info:
        load_taxonomy(write(tmp_path, data))
    assert info.value.field == "$.domains[1].children[0].name"
    assert info.value.path == str(tmp_path / "tax.json")
    assert "required" in info.value.message.lower()


def test_duplicate_path_is_a_cycle_error_at_the_second_node(tmp_path: Path) -> None:
    data = {
        "domains": [
            {"name": "coding", "children": [{"name": "debugging"}, {"name": "debugging "}]},
        ]
    }
    with pytest.raises(InputError) as info:
        load_taxonomy(write(tmp_path, data))
    assert info.value.field == "$.domains[0].children[1]"
    assert "duplicate path 'coding/debugging'" in info.value.message


def test_a_name_recurring_below_itself_is_another_node_not_a_cycle(tmp_path: Path) -> None:
    data = {"domains": [{"name": "a", "children": [{"name": "a", "children": [{"name": "a"}]}]}]}
    tree = load_taxonomy(write(tmp_path, data))
    assert tree.paths() == ["a", "a/a", "a/a/a"] and tree.leaves() == ["a/a/a"]
    assert tree.delete("a/a/a").paths() == ["a", "a/a"]


def test_names_are_free_text_and_their_paths_escape_slash_and_backslash(tmp_path: Path) -> None:
    data = {"domains": [{"name": "design", "children": [{"name": "UI/UX"}, {"name": "C:\\x"}]}]}
    tree = load_taxonomy(write(tmp_path, data))
    assert tree.paths() == ["design", "design/UI\\/UX", "design/C:\\\\x"]
    assert tree.find("design/UI\\/UX").name == "UI/UX"
    assert not tree.has("design/UI/UX")
    assert tree.depth() == 2


def test_an_empty_name_is_rejected_with_its_location(tmp_path: Path) -> None:
    data = {"domains": [{"name": "ok", "children": [{"name": "   "}]}]}
    with pytest.raises(InputError) as info:
        load_taxonomy(write(tmp_path, data))
    assert info.value.field == "$.domains[0].children[0].name"
    assert "at least 1 character" in info.value.message
    assert str(info.value).startswith(str(tmp_path / "tax.json"))


def test_unknown_field_and_wrong_top_level(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_taxonomy(write(tmp_path, {"domains": [{"name": "a", "kids": []}]}))
    assert info.value.field == "$.domains[0].kids"
    with pytest.raises(InputError) as info:
        load_taxonomy(write(tmp_path, [1, 2]))
    assert info.value.field == "$"


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    t = tax(SMALL)
    target = tmp_path / "out" / "t.json"
    save_taxonomy(t, target)
    assert load_taxonomy(target) == t
    assert list(target.parent.iterdir()) == [target]


# --- pure edit operations ---------------------------------------------------------------


def test_add_child_returns_a_new_tree_and_leaves_the_old_alone() -> None:
    t = tax(SMALL)
    grown = t.add_child("coding/debugging", "concurrency", "races")
    assert grown.find("coding/debugging/concurrency").description == "races"
    assert not t.has("coding/debugging/concurrency")
    assert grown.add_child("", "maths").paths()[-1] == "maths"


def test_add_child_rejects_duplicates_and_missing_parents() -> None:
    t = tax(SMALL)
    with pytest.raises(TaxonomyError, match="duplicate path 'coding/algorithms'"):
        t.add_child("coding", "algorithms")
    with pytest.raises(TaxonomyError, match="no node at 'cooking'"):
        t.add_child("cooking", "baking")
    assert t.add_child("coding", "a/b").find("coding/a\\/b").name == "a/b"


def test_delete_removes_the_subtree() -> None:
    t = tax(SMALL).delete("coding/debugging")
    assert t.paths() == [
        "coding",
        "coding/algorithms",
        "writing",
        "writing/poetry",
        "writing/email",
    ]
    with pytest.raises(TaxonomyError):
        t.delete("")


def test_reparent_moves_the_subtree_and_refuses_its_own_descendants() -> None:
    t = tax(SMALL)
    moved = t.reparent("coding/debugging", "writing")
    assert moved.has("writing/debugging/memory") and not moved.has("coding/debugging")
    assert tax(SMALL).reparent("coding/debugging", "").has("debugging/logic")
    with pytest.raises(TaxonomyError, match="under itself"):
        t.reparent("coding", "coding/debugging")
    with pytest.raises(TaxonomyError, match="duplicate path 'coding/poetry'"):
        t.add_child("coding", "poetry", "x").reparent("writing/poetry", "coding")


def test_merge_unions_children_recursively_and_keeps_the_target_description() -> None:
    t = tax(
        {
            "coding": {
                "debugging": {"memory": {"leaks": {}}, "logic": {}},
                "bug fixing": {"memory": {"overflow": {}}, "tests": {}},
            }
        }
    )
    merged = t.merge("coding/bug fixing", "coding/debugging")
    assert merged.paths() == [
        "coding",
        "coding/debugging",
        "coding/debugging/memory",
        "coding/debugging/memory/leaks",
        "coding/debugging/memory/overflow",
        "coding/debugging/logic",
        "coding/debugging/tests",
    ]
    assert merged.find("coding/debugging").description == "debugging desc"
    into_parent = t.merge("coding/bug fixing", "coding")
    assert into_parent.has("coding/tests") and not into_parent.has("coding/bug fixing")
    with pytest.raises(TaxonomyError, match="into itself or its descendant"):
        t.merge("coding", "coding/debugging")


def test_split_replaces_the_node_in_place_and_assigns_every_child() -> None:
    t = tax(SMALL)
    parts = {"runtime": "crashes", "static": "wrong results"}
    split = t.split("coding/debugging", parts, {"memory": "runtime", "logic": "static"})
    assert [c.name for c in split.find("coding").children] == ["runtime", "static", "algorithms"]
    assert split.find("coding/runtime").description == "crashes"
    assert split.has("coding/runtime/memory") and split.has("coding/static/logic")
    with pytest.raises(TaxonomyError, match="must assign each child"):
        t.split("coding/debugging", parts, {"memory": "runtime"})
    with pytest.raises(TaxonomyError, match="must assign each child"):
        t.split("coding/debugging", parts, {"memory": "runtime", "logic": "elsewhere"})


# --- diff -------------------------------------------------------------------------------


def test_diff_of_identical_trees_is_empty() -> None:
    assert diff(tax(SMALL), tax(SMALL)).is_empty()


def test_diff_reports_added_removed_and_description_changes() -> None:
    old = tax(SMALL)
    new = old.add_child("writing/email", "formal").delete("coding/algorithms")
    new.find("writing/poetry").description = "verse"
    d = diff(old, new)
    assert d.added == ["writing/email/formal"]
    assert d.removed == ["coding/algorithms"]
    assert d.moved == []
    assert [(c.path, c.old, c.new) for c in d.described] == [
        ("writing/poetry", "poetry desc", "verse")
    ]


def test_diff_reports_a_moved_subtree_once_and_carries_its_descendants() -> None:
    old = tax(SMALL)
    new = old.reparent("coding/debugging", "writing")
    new.find("writing/debugging/memory").description = "heap"
    d = diff(old, new)
    assert d.moved == [Move(old="coding/debugging", new="writing/debugging")]
    assert d.added == [] and d.removed == []
    assert [c.path for c in d.described] == ["writing/debugging/memory"]


def test_diff_does_not_guess_between_same_named_nodes() -> None:
    old = tax({"a": {"x": {"other": {}}, "y": {"other": {}}}, "b": {}})
    new = tax({"a": {"x": {}, "y": {}}, "b": {"p": {"other": {}}, "q": {"other": {}}}})
    d = diff(old, new)
    assert d.moved == []
    assert d.removed == ["a/x/other", "a/y/other"]
    assert d.added == ["b/p", "b/p/other", "b/q", "b/q/other"]


def test_diff_of_a_rename_moves_the_children_under_the_new_name() -> None:
    old = tax({"coding": {"debugging": {"memory": {}}}})
    new = tax({"coding": {"debug": {"memory": {}}}})
    d = diff(old, new)
    assert (d.removed, d.added) == (["coding/debugging"], ["coding/debug"])
    assert d.moved == [Move(old="coding/debugging/memory", new="coding/debug/memory")]


# --- rendering --------------------------------------------------------------------------


def test_tree_view_shows_every_node_and_escapes_markup() -> None:
    t = tax(SMALL).add_child("coding", "[bold]arrays", "uses [x] brackets")
    console = Console(record=True, width=120)
    console.print(tree_view(t))
    text = console.export_text()
    for path in t.paths():
        assert path.rsplit("/", 1)[-1] in text
    assert "[bold]arrays" in text and "uses [x] brackets" in text
    assert "coding desc" in text
    console.print(tree_view(t, descriptions=False))
    assert "desc" not in console.export_text()


def test_empty_or_binary_taxonomy_files_say_so(tmp_path: Path) -> None:
    from checkbench.errors import InputError
    from checkbench.scan.tree import load_taxonomy

    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    with pytest.raises(InputError, match="file is empty"):
        load_taxonomy(empty)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{")
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_taxonomy(binary)
