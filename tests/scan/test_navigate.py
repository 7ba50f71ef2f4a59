"""Navigation on hand-built scores whose ranks, findings and instability are worked out below.

Worked example (five items per leaf; each model scores every item of a leaf the same, so each
leaf interval collapses to the point):

    leaf                 A     B     C
    coding/algorithms    .9    .8    .7
    coding/debugging     .9    .8    .7
    coding/testing      1.0    .5    .1
    writing/email        .2    .9    .8
    writing/poetry       .5    .4   1.0

Overall means A .70, B .68, C .66 -> ranks A 1, B 2, C 3.
coding: A .933, B .70, C .50 -> 1, 2, 3.   writing: A .35, B .65, C .90 -> 3, 2, 1.
With threshold 1 (shift must exceed 1, i.e. be 2 here):
- A at writing: rank 3 vs 1, shift -2; comparator = rank-1 model there = C;
  A's interval lies in [.2, .5], C's in [.8, 1.0] -> weakness.
- A at writing/email: rank 3, shift -2; comparator B (rank 1, .9) -> weakness.
- C at writing: rank 1 vs 3, shift +2; comparator A (rank 3) -> strength.
- C at writing/poetry: rank 1, shift +2; comparator B (rank 3, .4) -> strength.
- Every other shift is at most 1 in size. B has no findings.
Instability (std of children's ranks, ddof=0): coding is 0 for all (1,1,1 / 2,2,2 / 3,3,3);
writing: A {3, 2} -> .5, B {1, 3} -> 1.0, C {2, 1} -> .5. Top 20% of 2 parents = 1 -> writing.
Spread (best - worst mean): testing .9, email .7, poetry .6, writing .55, coding .433, ...
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from checkbench.errors import InputError
from checkbench.scan.navigation import (
    ITEM_MEAN,
    TOO_FEW,
    NavigationSettings,
    navigate,
    taxonomy_tags,
    top_fraction,
)
from checkbench.scan.navigation_view import profile_view
from checkbench.scan.tree import Node, Taxonomy
from checkbench.schema import Check, Item, Message, Response, Verdict

LEAVES = {
    "coding/algorithms": {"A": 0.9, "B": 0.8, "C": 0.7},
    "coding/debugging": {"A": 0.9, "B": 0.8, "C": 0.7},
    "coding/testing": {"A": 1.0, "B": 0.5, "C": 0.1},
    "writing/email": {"A": 0.2, "B": 0.9, "C": 0.8},
    "writing/poetry": {"A": 0.5, "B": 0.4, "C": 1.0},
}
LOW_THRESHOLD = NavigationSettings(threshold=1, b=400)


def build(leaves: dict[str, dict[str, list[float | None] | float]], per_leaf: int = 5):
    """(scores, tags): per leaf `per_leaf` items; a float is every item's score, a list each's."""
    scores: dict[str, dict[str, float | None]] = {}
    tags: dict[str, list[str]] = {}
    for path, by_model in leaves.items():
        for model, value in by_model.items():
            values = value if isinstance(value, list) else [value] * per_leaf
            for index, score in enumerate(values):
                scores.setdefault(model, {})[f"{path}#{index}"] = score
                tags[f"{path}#{index}"] = [path]
    return scores, tags


@pytest.fixture(scope="module")
def nav():
    scores, tags = build(LEAVES)
    return navigate(scores, tags, settings=LOW_THRESHOLD)


def ranks(nav, path: str) -> dict[str, float | None]:
    return {model: cell.rank for model, cell in nav.node(path).cells.items()}


def test_ranks_per_node_and_overall(nav) -> None:
    assert ranks(nav, "") == {"A": 1, "B": 2, "C": 3}
    assert nav.overall.cells["A"].mean == pytest.approx(0.70)
    assert nav.overall.cells["A"].n == 25
    assert ranks(nav, "coding") == {"A": 1, "B": 2, "C": 3}
    assert ranks(nav, "writing") == {"A": 3, "B": 2, "C": 1}
    assert ranks(nav, "writing/email") == {"A": 3, "B": 1, "C": 2}
    assert nav.node("writing").cells["C"].mean == pytest.approx(0.9)
    assert [n.path for n in nav.nodes] == [
        "coding",
        "coding/algorithms",
        "coding/debugging",
        "coding/testing",
        "writing",
        "writing/email",
        "writing/poetry",
    ]


def test_intervals_bracket_the_mean(nav) -> None:
    constant = nav.node("writing/poetry").cells["C"]
    assert (constant.low, constant.mean, constant.high) == (1.0, 1.0, 1.0)
    mixed = nav.node("writing").cells["A"]
    assert mixed.mean == pytest.approx(0.35)
    assert 0.2 <= mixed.low < mixed.mean < mixed.high <= 0.5


def test_strengths_and_weaknesses_match_the_worked_example(nav) -> None:
    a, b, c = (nav.profiles[m] for m in "ABC")
    assert [(f.path, f.shift, f.versus) for f in a.weaknesses] == [
        ("writing", -2, "C"),
        ("writing/email", -2, "B"),
    ]
    assert a.strengths == []
    assert [(f.path, f.shift, f.versus) for f in c.strengths] == [
        ("writing", 2, "A"),
        ("writing/poetry", 2, "B"),
    ]
    assert c.weaknesses == []
    assert b.strengths == b.weaknesses == []
    finding = c.strengths[1]
    assert (finding.rank, finding.overall_rank) == (1, 3)
    assert finding.cell.low > finding.versus_cell.high


def test_the_default_threshold_of_five_finds_nothing_among_three_models() -> None:
    scores, tags = build(LEAVES)
    result = navigate(scores, tags, settings=NavigationSettings(b=200))
    assert all(not p.strengths and not p.weaknesses for p in result.profiles.values())


def test_instability_is_the_std_of_childrens_ranks_and_top_20_percent_is_unstable(nav) -> None:
    rows = {
        m: {r.path: (r.std, r.children, r.unstable) for r in p.instability}
        for m, p in nav.profiles.items()
    }
    assert rows["A"] == {"writing": (0.5, 2, True), "coding": (0.0, 3, False)}
    assert rows["B"] == {"writing": (1.0, 2, True), "coding": (0.0, 3, False)}
    assert rows["C"]["writing"] == (0.5, 2, True)
    assert [r.path for r in nav.profiles["B"].instability] == ["writing", "coding"]


def test_most_divergent_nodes_by_spread(nav) -> None:
    top = nav.most_divergent(3)
    assert [n.path for n in top] == ["coding/testing", "writing/email", "writing/poetry"]
    assert top[0].spread == pytest.approx(0.9)
    assert nav.node("coding").spread == pytest.approx(0.9 + 1 / 30 - 0.5)


def test_top_fraction_includes_ties_at_the_cut_and_never_zero() -> None:
    values = {f"p{i}": v for i, v in enumerate([5, 4, 4, 3, 2, 1, 1, 0, 0, 0])}
    assert top_fraction(values, 0.2) == {"p0", "p1", "p2"}
    assert top_fraction({"a": 0.0, "b": 0.0}, 0.2) == set()
    assert top_fraction({"a": 3, "b": 2, "c": 1, "d": 0, "e": 0}, 0.2) == {"a"}
    assert top_fraction({}, 0.2) == set()


def test_overlapping_intervals_block_a_finding_that_ranks_alone_would_make() -> None:
    # X leads overall (.6 vs .4). Y ranks first at both p/close and p/sharp (a shift of 1 > 0),
    # but at p/close the five 0/1 scores give intervals that overlap.
    scores, tags = build(
        {
            "p/close": {"X": [0, 1, 0, 1, 0], "Y": [1, 0, 1, 0, 1]},
            "p/clear": {"X": [1.0] * 10, "Y": [0.0] * 10},
            "p/sharp": {"X": 0.0, "Y": 1.0},
        }
    )
    result = navigate(scores, tags, settings=NavigationSettings(threshold=0, b=400))
    assert ranks(result, "") == {"X": 1, "Y": 2}
    assert ranks(result, "p/close") == {"X": 2, "Y": 1}
    close = result.node("p/close").cells
    assert close["Y"].low < close["X"].high
    assert [f.path for f in result.profiles["Y"].strengths] == ["p/sharp"]
    assert [f.path for f in result.profiles["X"].weaknesses] == ["p/sharp"]


def test_ties_share_the_average_rank() -> None:
    scores, tags = build(
        {"a/x": {"P": 0.5, "Q": 0.5, "R": 0.1}, "a/y": {"P": 0.3, "Q": 0.3, "R": 0.2}}
    )
    result = navigate(scores, tags, settings=NavigationSettings(b=100))
    assert ranks(result, "") == {"P": 1.5, "Q": 1.5, "R": 3}
    assert ranks(result, "a/x") == {"P": 1.5, "Q": 1.5, "R": 3}


def test_nodes_with_fewer_than_min_n_scored_items_are_too_few_for_every_model() -> None:
    scores, tags = build(
        {
            "d/small": {"A": 1.0, "B": 0.0},
            "d/gappy": {"A": [0.1, 0.2, 0.3, 0.4, 0.5], "B": [0.9, 0.9, None, 0.9, 0.9]},
            "d/big": {"A": 0.0, "B": 1.0},
        },
        per_leaf=4,
    )
    scores["A"].update({f"d/big#{i}": 0.0 for i in range(4, 8)})
    scores["B"].update({f"d/big#{i}": 1.0 for i in range(4, 8)})
    tags.update({f"d/big#{i}": ["d/big"] for i in range(4, 8)})
    del scores["B"]["d/gappy#4"]
    result = navigate(scores, tags, settings=NavigationSettings(threshold=0, b=100))
    small, gappy, big = (result.node(p) for p in ("d/small", "d/gappy", "d/big"))
    assert small.status == TOO_FEW and small.spread is None
    assert ranks(result, "d/small") == {"A": None, "B": None}
    assert gappy.status == TOO_FEW
    assert (gappy.cells["A"].n, gappy.cells["B"].n, gappy.cells["B"].unscored) == (5, 3, 2)
    assert big.status == "ranked" and ranks(result, "d/big") == {"A": 2, "B": 1}
    found = [f.path for p in result.profiles.values() for f in p.strengths + p.weaknesses]
    assert "d/small" not in found and "d/gappy" not in found


def test_a_child_tag_implies_its_ancestors_and_items_count_once() -> None:
    tags = {f"i{k}": ["coding/debugging/memory", "coding"] for k in range(5)} | {"j": []}
    scores = {"A": {**{f"i{k}": 1.0 for k in range(5)}, "j": 0.0}}
    result = navigate(scores, tags, settings=NavigationSettings(b=50))
    assert [n.path for n in result.nodes] == [
        "coding",
        "coding/debugging",
        "coding/debugging/memory",
    ]
    assert result.node("coding").items == 5
    assert result.overall.cells["A"].n == 6


def test_with_a_taxonomy_every_node_is_reported_in_its_order_and_tags_must_exist() -> None:
    taxonomy = Taxonomy(
        domains=[
            Node(name="writing", children=[Node(name="poetry"), Node(name="email")]),
            Node(name="coding"),
        ]
    )
    scores, tags = build({"writing/poetry": {"A": 1.0}})
    result = navigate(scores, tags, taxonomy=taxonomy, settings=NavigationSettings(b=50))
    assert [n.path for n in result.nodes] == [
        "writing",
        "writing/poetry",
        "writing/email",
        "coding",
    ]
    assert result.node("coding").status == TOO_FEW and result.node("coding").items == 0
    with pytest.raises(InputError) as info:
        navigate(scores, tags | {"x": ["writing/essay"]}, taxonomy=taxonomy)
    assert info.value.field == "tags.taxonomy" and "'x'" in info.value.message


def test_items_supply_their_taxonomy_tags() -> None:
    items = [
        Item(id="q1", messages=[Message(role="user", content="hi")], tags={"taxonomy": ["a/b"]}),
        Item(id="q2", messages=[Message(role="user", content="yo")], tags={"task": ["x"]}),
    ]
    assert taxonomy_tags(items) == {"q1": ["a/b"], "q2": []}


@pytest.mark.parametrize(
    ("scores", "tags", "message"),
    [
        ({"A": {"i": 1.5}}, {"i": ["a"]}, r"not in \[0, 1\]"),
        ({"A": {"i": float("nan")}}, {"i": ["a"]}, r"not in \[0, 1\]"),
        ({"A": {"ghost": 1.0}}, {"i": ["a"]}, "unknown item 'ghost'"),
        ({"A": {"i": 1.0}}, {"i": ["a//b"]}, "empty segment"),
        ({}, {"i": ["a"]}, "no model scores"),
    ],
)
def test_bad_input_is_an_input_error(scores, tags, message: str) -> None:
    with pytest.raises(InputError, match=message):
        navigate(scores, tags)


def test_results_are_seeded_and_json_round_trip() -> None:
    scores, tags = build({"a/x": {"P": [0.1, 0.9, 0.4, 0.7, 0.2]}, "a/y": {"P": 0.5}})
    first = navigate(scores, tags, settings=NavigationSettings(b=300, seed=7))
    second = navigate(scores, tags, settings=NavigationSettings(b=300, seed=7))
    assert first == second
    assert type(first).model_validate_json(first.model_dump_json()) == first
    other = navigate(scores, tags, settings=NavigationSettings(b=300, seed=8))
    assert other.node("a/x").cells["P"].low != first.node("a/x").cells["P"].low


def test_profile_view_renders_findings_and_unstable_parents(nav) -> None:
    console = Console(record=True, width=200)
    console.print(profile_view(nav, "A"))
    text = console.export_text()
    assert "rank 1 of 3" in text and "n=25" in text
    assert "Strengths (shift > 1 and separate 95% intervals): none" in text
    weaknesses = text[text.index("Weaknesses") :]
    assert "writing › email" in weaknesses and "-2" in weaknesses
    assert "Unstable parents" in text and "0.50" in text
    with pytest.raises(InputError, match="unknown model 'Z'"):
        profile_view(nav, "Z")


def test_navigation_of_fbbench_items_ranks_by_fbbench_score_and_says_so(tmp_path: Path) -> None:
    """FB-Bench's score is the mean of its (scenario, task) group means: navigation's cells are
    that score (on the released judgments DeepSeek-V3's overall is the leaderboard's 74.86, not
    the plain mean of items, 72.55) and say so; other items keep the mean of items."""
    from checkbench.scan.api import taxonomy_navigate
    from checkbench.scan.navigation_view import navigation_view
    from checkbench.store import RunStore

    items = [
        Item(
            id=f"{scenario}{n}",
            messages=[Message(role="user", content="q")],
            checklist=[Check(id="c", text="ok?")],
            tags={"scenario": [scenario], "task": ["Coding"]},
        )
        for scenario, count in (("EC", 1), ("RM", 3))
        for n in range(count)
    ]
    with RunStore(tmp_path / "run") as store:
        store.add_items(items)
        for item in items:  # EC 1 of 1 passed, RM 0 of 3: group means 1 and 0, items 0.25
            store.put_response(Response(item_id=item.id, model="m", content="a"))
            passed = item.id == "EC0"
            store.put_verdicts(
                [Verdict(item_id=item.id, model="m", judge="j", check_id="c", passed=passed)]
            )
    nav = taxonomy_navigate(tmp_path / "run", facets=["task"])
    assert nav.ranked_by.startswith("FB-Bench's score")
    assert nav.overall.cells["m"].mean == 0.5 and nav.node("Coding").cells["m"].mean == 0.5
    assert nav.model_dump(mode="json")["ranked_by"] == nav.ranked_by
    console = Console(record=True, width=200)
    console.print(navigation_view(nav, ["m"], 3))
    assert "(FB-Bench's score: the mean of the (scenario, task) group means" in " ".join(
        console.export_text().split()
    )
    plain = navigate({"m": {i.id: float(i.id == "EC0") for i in items}}, {i.id: [] for i in items})
    assert plain.overall.cells["m"].mean == 0.25 and plain.ranked_by == ITEM_MEAN
