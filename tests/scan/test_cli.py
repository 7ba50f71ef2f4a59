"""`checkbench scan show/diff/validate/navigate` on files and a hand-built run store.

The run store holds five items per leaf, each with ten checks; a model passes the first
round(10 * s) checks of every item of a leaf, so its item scores there are all s and every
interval collapses to the point. The leaf scores are those of tests/scan/test_navigate.py,
whose worked example gives, with threshold 1: A weak at writing and writing/email, C strong at
writing and writing/poetry, B without findings. The email items are tagged one level deeper,
at writing/email/formal, a single-child chain that pruning folds into writing/email.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.console.output import Printout
from checkbench.llm import open_backend
from checkbench.scan.cli import print_pc2, resolve_model
from checkbench.scan.pc2 import PC2Report
from checkbench.scan.pc2.agreement import PairAccuracy
from checkbench.scan.tree import Node, Taxonomy, load_taxonomy, save_taxonomy
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.stats.estimate import Stat
from checkbench.store import RunStore
from tests.conftest import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "taxonomy-mini.json"
LEAVES = {
    "coding/algorithms": {"A": 0.9, "B": 0.8, "C": 0.7},
    "coding/debugging": {"A": 0.9, "B": 0.8, "C": 0.7},
    "coding/testing": {"A": 1.0, "B": 0.5, "C": 0.1},
    "writing/email/formal": {"A": 0.2, "B": 0.9, "C": 0.8},
    "writing/poetry": {"A": 0.5, "B": 0.4, "C": 1.0},
}
JUDGE = "judge-x"


def _taxonomy() -> Taxonomy:
    leaf = lambda name: Node(name=name, description=f"{name} tasks")  # noqa: E731
    return Taxonomy(
        name="nav",
        domains=[
            Node(
                name="coding",
                children=[leaf("algorithms"), leaf("debugging"), leaf("testing")],
            ),
            Node(
                name="writing",
                children=[Node(name="email", children=[leaf("formal")]), leaf("poetry")],
            ),
        ],
    )


def _store(run_dir: Path, leaves: dict[str, dict[str, float]]) -> Path:
    """A run store holding the leaves' items, each model's responses and verdicts."""
    checks = [Check(id=f"c{k}", text=f"requirement {k}") for k in range(10)]
    with RunStore(run_dir) as store:
        for path, by_model in leaves.items():
            items = [
                Item(
                    id=f"{path}#{i}",
                    messages=[Message(role="user", content=f"task {i} of {path}")],
                    checklist=checks,
                    tags={"taxonomy": [path]},
                )
                for i in range(5)
            ]
            store.add_items(items)
            for item in items:
                for model, score in by_model.items():
                    store.put_response(Response(item_id=item.id, model=model, content="answer"))
                    passes = round(score * 10)
                    store.put_verdicts(
                        Verdict(
                            item_id=item.id,
                            model=model,
                            judge=JUDGE,
                            check_id=check.id,
                            passed=k < passes,
                        )
                        for k, check in enumerate(checks)
                    )
    return run_dir


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(run dir, taxonomy file) of the worked example."""
    base = tmp_path_factory.mktemp("nav")
    save_taxonomy(_taxonomy(), base / "tax.json")
    return _store(base / "run", LEAVES), base / "tax.json"


def _navigate(run: tuple[Path, Path], *extra: str) -> dict:
    result = run_cli(
        "scan", "navigate", str(run[0]), "--taxonomy", str(run[1]), "--min-n", "5",
        "--threshold", "1", "--json", *extra,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_navigate_finds_the_worked_examples_strengths_and_weaknesses(run) -> None:
    nav = _navigate(run)
    profiles = nav["profiles"]
    assert [f["path"] for f in profiles["A"]["weaknesses"]] == ["writing", "writing/email"]
    assert {f["path"] for f in profiles["C"]["strengths"]} == {"writing", "writing/poetry"}
    assert profiles["A"]["strengths"] == [] and profiles["C"]["weaknesses"] == []
    assert profiles["B"]["strengths"] == profiles["B"]["weaknesses"] == []
    overall = nav["overall"]["cells"]
    assert {m: c["rank"] for m, c in overall.items()} == {"A": 1, "B": 2, "C": 3}
    assert overall["A"]["mean"] == pytest.approx(0.70)
    spreads = {node["path"]: node["spread"] for node in nav["nodes"]}
    assert max(spreads, key=lambda path: spreads[path] or 0) == "coding/testing"


def test_navigate_moves_tags_onto_the_pruned_tree_unless_told_not_to(run) -> None:
    pruned = {node["path"]: node for node in _navigate(run)["nodes"]}
    assert "writing/email/formal" not in pruned
    assert pruned["writing/email"]["items"] == 5
    assert pruned["writing/email"]["cells"]["B"]["mean"] == pytest.approx(0.9)
    unpruned = {node["path"] for node in _navigate(run, "--no-prune")["nodes"]}
    assert {"writing/email", "writing/email/formal"} <= unpruned


def test_navigate_tables_show_nodes_profiles_and_divergent_nodes(run) -> None:
    result = run_cli(
        "scan", "navigate", str(run[0]), "--taxonomy", str(run[1]), "--min-n", "5",
        "--threshold", "1", "--model", "A",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Scores per taxonomy node" in out and "(overall)" in out
    assert "Weaknesses" in out and "writing › email" in out
    assert "Most divergent nodes" in out and "coding › testing" in out
    assert "B overall" not in out  # only the chosen model's profile
    assert "Strengths / weaknesses of A by rule" in out


def test_navigate_with_one_model_prints_its_scores_per_node_only(run, tmp_path: Path) -> None:
    alone = _store(tmp_path / "run", {path: {"B": m["B"]} for path, m in LEAVES.items()})
    result = run_cli("scan", "navigate", str(alone), "--taxonomy", str(run[1]))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Scores of B per taxonomy node" in out and "one model" in out
    assert "Most divergent" not in out and "#1" not in out and "Strengths" not in out
    poetry = next(line for line in out.splitlines() if "poetry" in line)
    assert "40" in poetry  # B's mean there, .4


def test_navigate_with_an_unknown_model_prints_one_error_and_no_table(run) -> None:
    result = run_cli(
        "scan", "navigate", str(run[0]), "--taxonomy", str(run[1]), "--model", "Z",
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert "unknown model 'Z' (known: A, B, C)" in result.stderr


def test_navigate_takes_a_model_spec_for_the_model_it_names() -> None:
    local = open_backend("local").name
    assert resolve_model("local", ["A", local]) == local
    assert resolve_model("A", ["A", local]) == "A"
    assert resolve_model("Z", ["A"]) == "Z"  # left for the navigation to report as unknown


def test_navigate_rejects_tags_outside_the_taxonomy(run, tmp_path: Path) -> None:
    save_taxonomy(Taxonomy(name="other", domains=[Node(name="coding")]), tmp_path / "t.json")
    result = run_cli("scan", "navigate", str(run[0]), "--taxonomy", str(tmp_path / "t.json"))
    assert result.returncode == 2
    assert "is not a path of the taxonomy" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_navigate_needs_a_run_directory(tmp_path: Path) -> None:
    result = run_cli("scan", "navigate", str(tmp_path), "--taxonomy", str(EXAMPLE))
    assert result.returncode == 2 and "not a checkbench run directory" in result.stderr


def test_show_prints_every_node_and_the_size() -> None:
    result = run_cli("scan", "show", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    tree = load_taxonomy(EXAMPLE)
    for path in tree.paths():
        assert path.rsplit("/", 1)[-1] in result.stdout
    assert f"{len(tree.paths())} nodes, {len(tree.leaves())} leaves" in result.stdout
    as_json = run_cli("scan", "show", str(EXAMPLE), "--json")
    assert Taxonomy.model_validate_json(as_json.stdout) == tree


def test_diff_lists_added_removed_and_moved_nodes(tmp_path: Path) -> None:
    old = load_taxonomy(EXAMPLE)
    new = (
        old.add_child("writing", "speeches")
        .reparent("writing/editing", "coding")
        .delete("mathematics/proof")
    )
    save_taxonomy(new, tmp_path / "new.json")
    result = run_cli("scan", "diff", str(EXAMPLE), str(tmp_path / "new.json"))
    assert result.returncode == 0, result.stderr
    assert "+ writing/speeches" in result.stdout
    assert "- mathematics/proof" in result.stdout
    assert "~ writing/editing -> coding/editing" in result.stdout
    same = run_cli("scan", "diff", str(EXAMPLE), str(EXAMPLE))
    assert same.stdout.strip() == "no differences"
    data = json.loads(run_cli("scan", "diff", str(EXAMPLE), str(tmp_path / "new.json"),
                              "--json").stdout)  # fmt: skip
    assert data["added"] == ["writing/speeches"]


def test_validate_reports_ok_or_one_located_error_line(tmp_path: Path) -> None:
    ok = run_cli("scan", "validate", str(EXAMPLE))
    assert ok.returncode == 0 and "ok: 33 nodes" in ok.stdout and "already pruned" in ok.stdout
    chain = Taxonomy(domains=[Node(name="a", children=[Node(name="b")])])
    save_taxonomy(chain, tmp_path / "chain.json")
    assert (
        "pruning would change it"
        in run_cli("scan", "validate", str(tmp_path / "chain.json")).stdout
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"domains": [{"name": "a", "children": [{"name": "x"}, {"name": "x"}]}]}')
    result = run_cli("scan", "validate", str(bad))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "duplicate path 'a/x'" in result.stderr and "$.domains[0].children[1]" in result.stderr


def test_pc2_human_agreement_over_no_ordered_pair_says_no_pairs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """0 correct and 0 wrong is no accuracy at all, not an accuracy of 0."""
    none = Stat(value=None, low=None, high=None, n=0)
    tied = PairAccuracy(pairs=3, correct=0, wrong=0, ties=2, unscored=1, accuracy=none)
    some = PairAccuracy(
        pairs=3,
        correct=1,
        wrong=1,
        ties=1,
        unscored=0,
        accuracy=Stat(value=0.5, low=0, high=1, n=2),
    )
    report = PC2Report(
        judge="pc2:j|aux=a", items=3, criteria_failed=0, criteria_rescaled=0, pointwise={},
        pairwise={}, position=None, human={"pointwise": tied, "pairwise": some},
    )  # fmt: skip
    print_pc2(report, Printout("table"))
    said = " ".join(capsys.readouterr().out.split())
    assert (
        "human agreement (pointwise): no pairs the judge ordered (3 pairs: 2 ties, 1 unscored)"
        in said
    )
    assert "human agreement (pairwise): accuracy 0.500" in said and "0.000" not in said


RELEASED = ROOT / "tests" / "data" / "scan" / "released_traits.json"
"""SCAN's released tree in small: '/' and a backslash in names, a child named like its parent,
the same name at several places, depth 6."""


def test_every_command_reads_a_tree_with_free_text_names(tmp_path: Path) -> None:
    tree = load_taxonomy(RELEASED)
    assert tree.depth() == 6 and len(tree.paths()) == 43
    shown = run_cli("scan", "show", str(RELEASED))
    assert shown.returncode == 0, shown.stderr
    assert "UI/UX Design" in shown.stdout and "Contract/Agreement Drafting" in shown.stdout
    checked = run_cli("scan", "validate", str(RELEASED))
    assert checked.returncode == 0 and "ok: 43 nodes" in checked.stdout, checked.stderr
    as_scan = run_cli("scan", "show", str(RELEASED), "--json", "--taxonomy-format", "scan")
    assert json.loads(as_scan.stdout) == json.loads(RELEASED.read_text(encoding="utf-8"))
    moved = tree.reparent("coding/Web Development/Frontend/UI\\/UX Design", "coding")
    save_taxonomy(moved, tmp_path / "moved.json")
    changes = run_cli("scan", "diff", str(RELEASED), str(tmp_path / "moved.json"), "--json")
    assert json.loads(changes.stdout)["moved"] == [
        {"old": "coding/Web Development/Frontend/UI\\/UX Design", "new": "coding/UI\\/UX Design"}
    ]


def test_navigation_keeps_nodes_apart_that_share_a_name(tmp_path: Path) -> None:
    fantasy = "writing/Creative Writing/Fiction/Fantasy"
    leaves = {
        f"{fantasy}/Fantasy/High Fantasy": {"A": 0.9, "B": 0.2},
        f"{fantasy}/Fairy Tale": {"A": 0.1, "B": 0.8},
        "coding/Web Development/Frontend/UI\\/UX Design/Accessibility": {"A": 0.5, "B": 0.6},
    }
    run_dir = _store(tmp_path / "run", leaves)
    result = run_cli(
        "scan", "navigate", str(run_dir), "--taxonomy", str(RELEASED), "--min-n", "5",
        "--no-prune", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    nodes = {node["path"]: node for node in json.loads(result.stdout)["nodes"]}
    assert nodes[f"{fantasy}/Fantasy"]["items"] == 5 and nodes[fantasy]["items"] == 10
    assert nodes["coding/Web Development/Frontend/UI\\/UX Design"]["items"] == 5
    table = run_cli(
        "scan", "navigate", str(run_dir), "--taxonomy", str(RELEASED), "--min-n", "5",
        "--no-prune",
    )  # fmt: skip
    assert table.returncode == 0, table.stderr
    assert "  UI/UX Design " in table.stdout  # the node table's names
    assert "Frontend › UI/UX Design" in table.stdout  # divergent nodes: names, not escapes
    assert "\\/" not in table.stdout
