"""The report's Taxonomy tab in a real browser (Debian's chromium through Playwright), on a tree
whose names hold '/' and a backslash and repeat at several places
(tests/data/scan/released_traits.json): every row, cell and finding the tab shows is the one
`checkbench scan navigate --json` gives, each node named by its names joined with " › ",
never by its escaped path.

Two reports of one run: one computes the navigation as `scan navigate` does by default; the
other shows a navigation stored for the judge, the CLI's own with `--threshold 0`, so that
strengths and weaknesses exist with three models.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from checkbench.scan.navigation import Navigation
from checkbench.scan.paths import join_names
from checkbench.scan.report import NAVIGATION
from checkbench.store import RunStore
from tests.conftest import run_cli
from tests.report.test_browser import browser, open_page, visit
from tests.scan.test_cli import JUDGE, RELEASED, _store

__all__ = ["browser"]  # the fixture

FANTASY = ("writing", "Creative Writing", "Fiction", "Fantasy")
LEGAL = ("writing", "Professional Writing", "Legal Documents")
LEAVES = {
    (*FANTASY, "Fantasy", "High Fantasy"): {"A": 0.9, "B": 0.6, "C": 0.3},
    (*FANTASY, "Fairy Tale"): {"A": 0.8, "B": 0.6, "C": 0.4},
    (*LEGAL, "Contract/Agreement Drafting", "Clauses"): {"A": 0.7, "B": 0.5, "C": 0.2},
    ("coding", "Web Development", "Frontend", "UI/UX Design", "Accessibility"): {
        "A": 0.1, "B": 0.5, "C": 0.9
    },
    ("coding", "Debugging", "Paths like C:\\temp"): {"A": 0.2, "B": 0.9, "C": 0.5},
}  # fmt: skip
"""Items per leaf, by the names along it; A leads overall, C is strong at UI/UX Design and B
at the backslash leaf."""
SEP = " › "
READ_ROWS = """rows => rows.map((row) => ({
  path: row.dataset.path,
  label: row.dataset.label,
  name: row.querySelector('.name').firstChild.textContent,
  cells: Object.fromEntries([...row.querySelectorAll('td[data-model]')].map((td) => {
    const heat = td.querySelector('.heat'), rank = heat.querySelector('small');
    return [td.dataset.model, [heat.firstChild.textContent, rank && rank.textContent, heat.title]];
  })),
}))"""
"""Each row of the tree as shown: path, label, own name, and per model (score, rank, tooltip)."""


def _navigate(run_dir: Path, *extra: str) -> dict:
    taxonomy = ("--taxonomy", str(RELEASED))
    result = run_cli("scan", "navigate", str(run_dir), *taxonomy, *extra, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _report(run_dir: Path, out: Path) -> Path:
    result = run_cli("report", str(run_dir), "--taxonomy", str(RELEASED), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, Path]]:
    """By kind ("computed", "stored"): the navigation `scan navigate --json` prints and the
    report that should show it."""
    base = tmp_path_factory.mktemp("taxonomy-tab")
    run_dir = _store(base / "run", {join_names(names): s for names, s in LEAVES.items()})
    computed = (_navigate(run_dir), _report(run_dir, base / "computed.html"))
    flagged = _navigate(run_dir, "--threshold", "0")
    with RunStore(run_dir) as store:
        store.put_record(NAVIGATION, JUDGE, Navigation.model_validate(flagged))
    return {"computed": computed, "stored": (flagged, _report(run_dir, base / "stored.html"))}


def _label(names: list[str]) -> str:
    return SEP.join(names) if names else "overall"


def _open_tab(browser: Browser, report: Path) -> tuple[Page, list[str]]:
    page, trouble = open_page(browser, report.as_uri())
    visit(page, "taxonomy")
    page.locator("[data-panel=taxonomy] button", has_text="Expand all").click()
    return page, trouble


@pytest.mark.parametrize("kind", ["computed", "stored"])
def test_the_tree_shows_the_nodes_and_cells_of_navigate_json(
    browser: Browser, reports: dict[str, tuple[dict, Path]], kind: str
) -> None:
    nav, report = reports[kind]
    page, trouble = _open_tab(browser, report)
    rows = page.locator("[data-panel=taxonomy] table.tree tbody tr")
    expect(rows).to_have_count(1 + len(nav["nodes"]))
    shown_rows = {row["path"]: row for row in rows.evaluate_all(READ_ROWS)}
    assert len(shown_rows) == 1 + len(nav["nodes"])
    for node in [nav["overall"], *nav["nodes"]]:
        row, names = shown_rows[node["path"]], node["names"]
        if names:
            assert row["label"] == _label(names)
            assert row["name"] == names[-1]  # the node's own name, '/' and '\' as written
        for model, cell in node["cells"].items():
            value, rank, title = row["cells"][model]
            if cell["mean"] is None:  # a node no item reached
                assert value == "–" and node["items"] == 0, (node["path"], model)
                continue
            assert value == f"{cell['mean'] * 100:.2f}", (node["path"], model)
            assert title.startswith(f"{model} at {_label(names)}: ")
            assert rank == (None if cell["rank"] is None else f"#{cell['rank']:g}")
    shown = page.locator("[data-panel=taxonomy]").inner_text()
    assert "UI/UX Design" in shown and "Paths like C:\\temp" in shown
    assert "\\/" not in shown and "\\\\" not in shown  # no escaped path anywhere
    assert trouble == []
    page.close()


def test_findings_and_unstable_parents_are_named_as_navigate_json_names_them(
    browser: Browser, reports: dict[str, tuple[dict, Path]]
) -> None:
    nav, report = reports["stored"]
    page, trouble = _open_tab(browser, report)
    named = []
    for model, profile in nav["profiles"].items():
        card = page.locator(f"[data-panel=taxonomy] .profile[data-model={json.dumps(model)}]")
        expected = [
            _label(entry["names"])
            for entry in [
                *profile["strengths"],
                *profile["weaknesses"],
                *(row for row in profile["instability"] if row["unstable"]),
            ]
        ]
        expect(card.locator("li strong")).to_have_count(len(expected))
        assert card.locator("li strong").all_inner_texts() == expected
        named += expected
    ui = _label(["coding", "Web Development", "Frontend", "UI/UX Design"])
    assert any(label.startswith(ui) for label in named), named  # a finding under a '/' name
    assert trouble == []
    page.close()


def test_the_items_tab_names_taxonomy_tags_as_the_tree_does(
    browser: Browser, reports: dict[str, tuple[dict, Path]]
) -> None:
    _, report = reports["computed"]
    page, trouble = open_page(browser, report.as_uri())
    visit(page, "items")
    options = page.locator("[data-control=tag] optgroup[label=Taxonomy] option")
    expect(options).to_have_count(len(LEAVES))
    shown = options.evaluate_all("options => options.map((o) => o.textContent)")
    assert sorted(shown) == sorted(SEP.join(names) for names in LEAVES)
    page.locator("[data-control=tag]").select_option(label=SEP.join(FANTASY + ("Fairy Tale",)))
    chips = page.locator("[data-panel=items] .row-head .chip")
    expect(chips.first).to_have_text(SEP.join(FANTASY + ("Fairy Tale",)))
    assert trouble == []
    page.close()
