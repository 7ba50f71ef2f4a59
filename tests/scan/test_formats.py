"""SCAN's released formats: the nested taxonomy and the query files, read and written.

tests/data/scan/ holds our own small files in SCAN's layout: a taxonomy of the six domains
(76 nodes, 50 leaves, facets such as writing/Genre one level below each domain) and seven
queries whose type tags name nodes below those facets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkbench.benchmarks import detect_format, load_items
from checkbench.errors import InputError
from checkbench.scan.navigation import NavigationSettings, navigate_items
from checkbench.scan.queries import type_tag_paths
from checkbench.scan.tree import (
    Node,
    Taxonomy,
    diff,
    dump_taxonomy,
    load_taxonomy,
    save_taxonomy,
)
from checkbench.schema import Item
from tests.conftest import ROOT, run_cli

DATA = ROOT / "tests" / "data" / "scan"
TAXONOMY = DATA / "taxonomy.json"
QUERIES = DATA / "queries.jsonl"
SIX = ["writing", "roleplay", "knowledge", "coding", "mathematics", "reasoning"]


def write(tmp_path: Path, data: Any, name: str = "tax.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# --- the nested taxonomy --------------------------------------------------------------------


def test_nested_taxonomy_loads_with_names_and_no_descriptions() -> None:
    tree = load_taxonomy(TAXONOMY)
    assert [d.name for d in tree.domains] == SIX
    assert tree.name == "taxonomy"  # the file's name: the format has none
    assert (len(tree.paths()), len(tree.leaves()), tree.depth()) == (76, 50, 4)
    assert tree.find("writing/Genre/Fiction/Science Fiction").children == []
    assert [c.name for c in tree.find("coding/Task Type/Debugging").children] == [
        "Runtime Errors",
        "Logic Errors",
    ]
    assert all(node.description == "" for _, node in tree.walk())


def test_writing_the_nested_format_gives_back_the_file() -> None:
    tree = load_taxonomy(TAXONOMY)
    assert json.loads(dump_taxonomy(tree, "scan")) == json.loads(TAXONOMY.read_text("utf-8"))


def test_either_format_round_trips_and_scan_keeps_only_names(tmp_path: Path) -> None:
    rich = Taxonomy(
        name="t",
        description="mine",
        domains=[
            Node(name="coding", description="code", children=[Node(name="sql", description="q")]),
            Node(name="writing"),
        ],
    )
    save_taxonomy(rich, tmp_path / "native.json")
    save_taxonomy(rich, tmp_path / "nested.json", "scan")
    assert load_taxonomy(tmp_path / "native.json") == rich
    assert json.loads((tmp_path / "nested.json").read_text("utf-8")) == {
        "coding": {"sql": {}},
        "writing": {},
    }
    nested = load_taxonomy(tmp_path / "nested.json")
    assert nested.paths() == rich.paths()
    change = diff(rich, nested)
    assert not (change.added or change.removed or change.moved)
    assert {d.path for d in change.described} == {"coding", "coding/sql"}


def test_unknown_output_format_is_refused() -> None:
    with pytest.raises(InputError, match="unknown taxonomy format 'yaml'"):
        dump_taxonomy(load_taxonomy(TAXONOMY), "yaml")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ('{"writing": {"Genre": {"Poetry": []}}}', "$.writing.Genre.Poetry", "not an array"),
        ('{"writing": {"Genre": "Poetry"}}', "$.writing.Genre", "not a string"),
        ('{"writing": {}, "coding": null}', "$.coding", "not null"),
        ('{"writing": {"Style": {}, "Style": {"Formal": {}}}}', "$.writing.Style", "twice"),
        ('{"writing": {"  ": {}}}', '$.writing["  "]', "at least 1 character"),
        ('{"writing": {"Poetry": {}, "Poetry ": {}}}', '$.writing["Poetry "]', "duplicate path"),
        ('{"name": "t", "writing": {}}', "$.name", "not a string"),
    ],
)
def test_bad_nested_files_are_located_in_the_file(
    tmp_path: Path, text: str, field: str, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        load_taxonomy(write(tmp_path, text))
    assert caught.value.field == field
    assert message in caught.value.message
    assert caught.value.path == str(tmp_path / "tax.json")


def test_checkbench_files_are_still_told_apart(tmp_path: Path) -> None:
    """A file with "domains" is checkbench's format, whatever else it holds."""
    with pytest.raises(InputError) as caught:
        load_taxonomy(write(tmp_path, {"domains": [], "writing": {}}))
    assert caught.value.field == "$.writing" and "Extra inputs" in caught.value.message
    assert load_taxonomy(write(tmp_path, {})) == Taxonomy()


def test_taxonomy_commands_read_both_formats(tmp_path: Path) -> None:
    native = tmp_path / "native.json"
    save_taxonomy(load_taxonomy(TAXONOMY), native)
    shown = run_cli("scan", "show", str(TAXONOMY))
    assert shown.returncode == 0, shown.stderr
    assert "76 nodes, 50 leaves, depth 4" in shown.stdout and "Science Fiction" in shown.stdout
    compared = run_cli("scan", "diff", str(TAXONOMY), str(native))
    assert compared.returncode == 0, compared.stderr
    assert "no differences" in compared.stdout
    bad = write(tmp_path, '{"writing": {"Genre": {"Poetry": 1}}}', "bad.json")
    checked = run_cli("scan", "validate", str(bad))
    assert checked.returncode == 2
    [line] = checked.stderr.strip().splitlines()
    assert line.endswith(
        f"{bad}: field '$.writing.Genre.Poetry': a node must be a JSON object "
        "({} for a leaf), not a number"
    )


# --- query files ----------------------------------------------------------------------------


def test_query_files_are_detected_and_become_items_with_tags() -> None:
    assert detect_format(QUERIES) == "scan"
    items = load_items(QUERIES)
    assert [i.id for i in items] == ["101", "102", "103", "rm-7", "104", "105", "106"]
    first = items[0]
    assert first.messages[0].role == "user" and first.messages[0].content.startswith("Write a")
    assert first.checklist == []
    assert first.tags == {
        "domain": ["writing"],
        "Genre": ["Fiction", "Fantasy"],
        "Purpose": ["Entertainment"],
        "Style": ["Other"],
    }
    assert first.meta == {
        "scan": {
            "question_quality": [1, 2, 4],
            "source": {"dataset": "handwritten", "original_id": "hw-001"},
        }
    }
    assert sorted({i.tag("domain")[0] for i in items}) == sorted(SIX)


def _query(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": 1,
        "prompt": "Explain tides.",
        "meta_data": {"domain": "knowledge", "type_tags": {"Subject": ["Science"]}},
        "source": "handwritten",
    }
    for key, value in changes.items():
        if key.startswith("meta_"):
            record["meta_data"][key.removeprefix("meta_")] = value
        elif value is None:
            del record[key]
        else:
            record[key] = value
    return record


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"prompt": "   "}, "prompt", "pattern"),
        ({"prompt": None}, "prompt", "required"),
        ({"meta_domain": "poetry"}, "meta_data.domain", "not a SCAN domain"),
        ({"meta_type_tags": {"Subject": "Science"}}, "meta_data.type_tags.Subject", "list"),
        ({"meta_type_tags": {"taxonomy": ["x"]}}, "meta_data.type_tags", "cannot name"),
        ({"meta_type_tags": {"Subject": [" "]}}, "meta_data.type_tags", "empty tag"),
        ({"meta_data": "knowledge"}, "meta_data", "valid dictionary"),
    ],
)
def test_bad_query_records_name_line_and_field(
    tmp_path: Path, changes: dict[str, Any], field: str, message: str
) -> None:
    good = _query()
    bad = _query(**changes) if "meta_data" not in changes else {**good, **changes}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_items(path, "scan")
    assert (caught.value.line, caught.value.field) == (2, field)
    assert message in caught.value.message


def test_domains_are_read_in_any_case(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(_query(meta_domain="Knowledge")) + "\n", encoding="utf-8")
    assert load_items(path)[0].tags["domain"] == ["knowledge"]


# --- type tags on the taxonomy --------------------------------------------------------------


def test_type_tags_become_taxonomy_paths() -> None:
    tree = load_taxonomy(TAXONOMY)
    by_id = {i.id: i for i in load_items(QUERIES)}
    assert type_tag_paths(by_id["101"], tree) == [
        "writing",
        "writing/Genre/Fiction",
        "writing/Genre/Fiction/Fantasy",
        "writing/Purpose/Entertainment",
        "writing/Style",  # "Other": the facet itself
    ]
    assert type_tag_paths(by_id["103"], tree)[2:4] == [
        "coding/Task Type/Debugging",
        "coding/Task Type/Debugging/Runtime Errors",
    ]


def _scan_item(domain: str, tags: dict[str, list[str]]) -> Item:
    return Item(
        id="x",
        messages=[{"role": "user", "content": "q"}],
        tags={"domain": [domain], **tags},
        meta={"scan": {}},
    )


def test_type_tags_the_taxonomy_cannot_place_are_errors() -> None:
    tree = load_taxonomy(TAXONOMY)
    assert type_tag_paths(_scan_item("writing", {"genre": ["poetry"]}), tree) == [
        "writing",
        "writing/Genre/Poetry",
    ]
    with pytest.raises(InputError, match="tag 'Sonnet' names 0 nodes under 'writing/Genre'"):
        type_tag_paths(_scan_item("writing", {"Genre": ["Sonnet"]}), tree)
    with pytest.raises(InputError, match="facet 'Task Type' names 0 nodes under 'writing'"):
        type_tag_paths(_scan_item("writing", {"Task Type": ["Proof"]}), tree)
    with pytest.raises(InputError, match="no domain 'other'"):
        type_tag_paths(_scan_item("other", {"Genre": ["Poetry"]}), tree)
    assert type_tag_paths(_scan_item("other", {}), tree) == []


def test_navigation_places_scan_items_by_their_type_tags() -> None:
    tree = load_taxonomy(TAXONOMY)
    items = load_items(QUERIES)
    scores = {
        "a": {i.id: 1.0 if i.tag("domain") == ["coding"] else 0.0 for i in items},
        "b": {i.id: 0.5 for i in items},
    }
    nav = navigate_items(items, scores, tree, settings=NavigationSettings(min_n=1, b=50))
    coding = nav.node("coding")
    assert coding.items == 2 and coding.cells["a"].mean == 1.0
    assert nav.node("coding/Task Type/Debugging/Runtime Errors").items == 1
    assert nav.node("writing/Style").items == 1
    assert nav.node("reasoning/Task Form/Planning").items == 0
    tagged = items[0].model_copy(update={"tags": {**items[0].tags, "taxonomy": ["coding"]}})
    moved = navigate_items([tagged, *items[1:]], scores, tree, settings=nav.settings)
    assert moved.node("coding").items == 3  # explicit taxonomy paths win over type tags
