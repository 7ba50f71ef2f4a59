"""What navigation says when it ranks or flags less than it could: the cause of every unranked
node, the findings looser rules would give, and a single model's view without cross-model
tables. Scores are hand-built (tests/scan/test_navigate.py's `build`), so every count is
worked out from the data below."""

from __future__ import annotations

from rich.console import Console

from checkbench.scan.navigation import Navigation, NavigationSettings, Rule, navigate
from checkbench.scan.navigation_view import (
    coverage_notes,
    finding_notes,
    navigation_view,
    rules_view,
    unranked_notes,
)
from checkbench.scan.tree import Node, Taxonomy
from tests.scan.test_navigate import LEAVES, build

FAST = NavigationSettings(threshold=1, b=200)


def _text(nav: Navigation, models: list[str] | None = None) -> str:
    console = Console(record=True, width=200)
    console.print(navigation_view(nav, models or nav.models))
    return console.export_text()


def _counts(nav: Navigation, rule: Rule) -> tuple[int, int]:
    count = next(c for c in nav.rule_counts if c.rule == rule)
    return sum(count.strengths.values()), sum(count.weaknesses.values())


def test_each_unranked_node_is_explained_by_its_cause() -> None:
    # d/empty: in the taxonomy, no item; d/small: 3 items; d/gappy: 5 items, but B answered
    # only 3 of them and one of those went unscored; d/big: 5 items, ranked.
    taxonomy = Taxonomy(
        domains=[
            Node(name="d", children=[Node(name=n) for n in ("empty", "small", "gappy", "big")])
        ]
    )
    scores, tags = build(
        {
            "d/small": {"A": [1.0] * 3, "B": [0.0] * 3},
            "d/gappy": {"A": [0.5] * 5, "B": [0.9, None, 0.9]},
            "d/big": {"A": 1.0, "B": 0.0},
        }
    )
    tags["loose"] = []
    scores["A"]["loose"] = 0.5
    nav = navigate(scores, tags, taxonomy=taxonomy, settings=FAST)
    assert coverage_notes(nav) == ["1 of 14 items carry no tag of this hierarchy (overall only)"]
    assert unranked_notes(nav) == [
        "3 of 5 nodes not ranked: 1 have no item tagged; 1 have fewer than 5 items; 1 have "
        "enough items (5 or more) but a model has fewer than 5 of them scored there: B at 1 of "
        "them (2 items unanswered, 1 unscored)"
    ]
    assert nav.node("d/gappy").cells["B"].missing == 2
    assert nav.node("d").status == "ranked"  # 13 items under d, 10 scored for B


def test_an_overall_row_short_of_items_names_the_model_and_why() -> None:
    scores, tags = build({"p/x": {"A": 1.0, "B": [0.2, None, None]}})
    nav = navigate(scores, tags, settings=FAST)
    assert unranked_notes(nav)[0] == (
        "overall not ranked, so no strengths or weaknesses: fewer than 5 scored items in all: "
        "B has 1 (2 items unanswered, 2 unscored)"
    )
    assert all(not p.strengths and not p.weaknesses for p in nav.profiles.values())


def test_items_without_any_tag_are_named_as_the_cause() -> None:
    scores, tags = build({"p/x": {"A": 1.0, "B": 0.5}})
    nav = navigate(scores, {item: [] for item in tags}, settings=FAST)
    assert nav.nodes == [] and nav.untagged == 5
    assert "no item carries a tag of this hierarchy" in coverage_notes(nav)[0]


def test_looser_rules_count_what_the_strict_rule_leaves_out() -> None:
    # tests/scan/test_navigate.py's overlap example: X leads overall; Y ranks first at
    # p/close (intervals overlap) and p/sharp (they separate), X trails there.
    scores, tags = build(
        {
            "p/close": {"X": [0, 1, 0, 1, 0], "Y": [1, 0, 1, 0, 1]},
            "p/clear": {"X": [1.0] * 10, "Y": [0.0] * 10},
            "p/sharp": {"X": 0.0, "Y": 1.0},
        }
    )
    nav = navigate(scores, tags, settings=NavigationSettings(threshold=0, b=400))
    rules = NavigationSettings(threshold=0).rules()
    assert rules == [Rule(threshold=0, level=0.95), Rule(threshold=0, level=0.9), Rule(threshold=0)]
    assert [c.rule for c in nav.rule_counts] == rules
    assert _counts(nav, Rule(threshold=0, level=0.95)) == (1, 1)  # p/sharp: Y up, X down
    assert _counts(nav, Rule(threshold=0)) == (2, 2)  # p/close too, intervals ignored
    strict = nav.rule_counts[0]
    assert strict.strengths["Y"] == len(nav.profiles["Y"].strengths)


def test_the_rule_grid_relaxes_shift_and_intervals_and_only_ever_adds_findings() -> None:
    scores, tags = build(LEAVES)
    nav = navigate(scores, tags, settings=FAST)
    grid = {(c.rule.threshold, c.rule.level): _counts(nav, c.rule) for c in nav.rule_counts}
    assert list(grid) == [(1, 0.95), (1, 0.9), (1, None), (0, 0.95), (0, 0.9), (0, None)]
    assert grid[1, 0.95] == (2, 2)  # the worked example: C strong twice, A weak twice
    for (threshold, level), (strengths, weaknesses) in grid.items():
        assert strengths >= grid[1, 0.95][0] and weaknesses >= grid[1, 0.95][1]
        if threshold == 1:
            assert strengths <= grid[0, level][0] and weaknesses <= grid[0, level][1]
    text = " ".join(_text(nav).split())  # headers wrap between words to fit
    assert "by rule (first cell: the rule in force)" in text
    headers = [column.header for column in rules_view(nav, nav.models).columns]
    assert headers == [
        "rank shift",
        "95% intervals apart",
        "90% intervals apart",
        "intervals ignored",
    ]


def test_a_threshold_no_shift_can_exceed_is_said_so() -> None:
    scores, tags = build(LEAVES)
    nav = navigate(scores, tags, settings=NavigationSettings(threshold=2, b=100))
    assert finding_notes(nav) == [
        "with 3 models a rank shift is at most 2, so none exceeds the threshold 2: lower "
        "--threshold (see the looser rules)"
    ]
    assert finding_notes(navigate(scores, tags, settings=FAST)) == []


def test_one_model_shows_its_scores_per_node_and_no_cross_model_table() -> None:
    scores, tags = build({"p/x": {"A": [1.0, 0.0, 1.0, 1.0, None]}, "p/y": {"A": 0.25}})
    text = _text(navigate(scores, tags, settings=FAST))
    assert "Scores of A per taxonomy node" in text
    row = next(line for line in text.splitlines() if line.startswith("  x "))
    assert row.split()[1:5] == ["5", "4", "1", "75.00"]  # items, scored, unscored, mean .75
    assert "one model: its scores per node only" in text
    for cross in ("#1", "Most divergent", "Strengths", "by rule", "fewer than"):
        assert cross not in text
