"""Layer pruning: single-child collapse, the depth limit with its wide-node exception, tag remap."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.scan.paths import TaxonomyError
from checkbench.scan.prune import prune
from checkbench.scan.tree import Node, Taxonomy, load_taxonomy

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "taxonomy-mini.json"


def tax(spec: dict) -> Taxonomy:
    """A taxonomy from a nested {name: {child: {...}}} dict."""

    def nodes(level: dict) -> list[Node]:
        return [Node(name=k, description=k.upper(), children=nodes(v)) for k, v in level.items()]

    return Taxonomy(domains=nodes(spec))


def fan(prefix: str, count: int, children: dict | None = None) -> dict:
    """count siblings named prefix1..prefixN; the first one gets `children`."""
    return {f"{prefix}{i}": (children or {}) if i == 1 else {} for i in range(1, count + 1)}


def test_single_child_chain_folds_into_its_top_node_which_keeps_its_name() -> None:
    t = tax({"d": {"x": {"x1": {"p": {}, "q": {}}}, "y": {}}})
    result = prune(t)
    assert result.taxonomy.paths() == ["d", "d/x", "d/x/p", "d/x/q", "d/y"]
    assert result.taxonomy.find("d/x").description == "X"
    assert result.path_map["d/x/x1"] == "d/x"
    assert result.path_map["d/x/x1/p"] == "d/x/p"


def test_a_domain_with_one_child_absorbs_the_whole_chain() -> None:
    t = tax({"d": {"a": {"b": {"c1": {}, "c2": {}}}}, "e": {"leaf": {}}})
    result = prune(t)
    assert result.taxonomy.paths() == ["d", "d/c1", "d/c2", "e"]
    assert result.path_map["d/a"] == result.path_map["d/a/b"] == "d"
    assert result.path_map["e/leaf"] == "e"


def test_depth_limit_keeps_three_levels_below_a_domain() -> None:
    # level: d=0, a=1, a1=2, n1=3, m1=4 (cut: n1 has only 2 children)
    t = tax({"d": {"a": {"a1": {"n1": {"m1": {}, "m2": {}}, "n2": {}}, "a2": {}}, "b": {}}})
    result = prune(t)
    assert result.taxonomy.depth() == 4
    assert not result.taxonomy.has("d/a/a1/n1/m1")
    assert result.taxonomy.find("d/a/a1/n1").children == []
    assert result.path_map["d/a/a1/n1/m2"] == "d/a/a1/n1"


def test_a_node_with_five_children_keeps_them_beyond_the_limit_but_not_deeper_narrow_ones() -> None:
    wide = fan("v", 5, children={"u1": {}, "u2": {}})  # v1 (level 4) has 2 children: cut
    t = tax({"d": {"a": {"a2": {"w1": wide, "w2": {}}, "a3": {}}, "b": {}}})
    result = prune(t)
    kept = result.taxonomy.find("d/a/a2/w1").children
    assert [c.name for c in kept] == ["v1", "v2", "v3", "v4", "v5"]
    assert kept[0].children == []
    assert result.path_map["d/a/a2/w1/v1/u2"] == "d/a/a2/w1/v1"
    four = tax({"d": {"a": {"a2": {"w1": fan("v", 4), "w2": {}}, "a3": {}}, "b": {}}})
    assert prune(four).taxonomy.find("d/a/a2/w1").children == []


def test_wide_layers_chain_while_each_layer_has_enough_children() -> None:
    deep = fan("v", 5, children=fan("u", 6))
    t = tax({"d": {"a": {"a2": {"w1": deep, "w2": {}}, "a3": {}}, "b": {}}})
    assert prune(t).taxonomy.has("d/a/a2/w1/v1/u6")
    assert not prune(t, wide=6).taxonomy.has("d/a/a2/w1/v1")


def test_limits_are_configurable() -> None:
    t = tax({"d": {"a": {"a1": {"n1": {}, "n2": {}}, "a2": {}}, "b": {}}})
    shallow = prune(t, max_levels=1)
    assert shallow.taxonomy.paths() == ["d", "d/a", "d/b"]
    assert shallow.path_map["d/a/a1/n2"] == "d/a"


def test_collapse_runs_before_the_depth_limit() -> None:
    # x -> x1 -> x2 -> x3 -> {l1, l2}: the leaves sit at level 5, but collapsing the chain
    # brings them to level 2, so they survive.
    t = tax({"d": {"x": {"x1": {"x2": {"x3": {"l1": {}, "l2": {}}}}}, "y": {}}})
    assert prune(t).taxonomy.paths() == ["d", "d/x", "d/x/l1", "d/x/l2", "d/y"]


def test_pruning_is_pure_and_idempotent() -> None:
    t = tax({"d": {"a": {"b": {"c1": {}, "c2": {}}}}, "e": {"f": {}, "g": {}}})
    before = t.model_dump()
    once = prune(t).taxonomy
    assert t.model_dump() == before
    assert prune(once).taxonomy == once


def test_the_example_taxonomy_is_already_pruned() -> None:
    example = load_taxonomy(EXAMPLE)
    result = prune(example)
    assert result.taxonomy == example
    assert all(old == new for old, new in result.path_map.items())


def test_remap_moves_tags_onto_survivors_without_duplicates() -> None:
    t = tax({"d": {"x": {"x1": {"p": {}, "q": {}}}, "y": {}}})
    result = prune(t)
    assert result.remap(["d/x/x1", "d/x", "d / x / x1 / p", "d/y"]) == ["d/x", "d/x/p", "d/y"]
    with pytest.raises(TaxonomyError, match="not a path"):
        result.remap(["d/z"])
