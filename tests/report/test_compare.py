"""The report's Compare tab: each pair of models' paired delta and the items that moved most,
both answers side by side as text (never markup)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from checkbench.report.assemble import build_report
from checkbench.store import RunStore
from tests.compare.runs import make_run
from tests.conftest import run_cli
from tests.report.test_browser import browser, open_page

__all__ = ["browser"]  # the fixture, shared with the other browser tests

BASE = [(True, True), (True, False), (False, False), (True, True)]
CAND = [(False, True), (True, True), (False, False), (True, True)]


def test_compare_section_pairs_every_model(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"a": BASE, "b": CAND, "c": BASE})
    with RunStore.existing(run) as store:
        data = build_report(store).data["compare"]
    assert data["judge"] == "judge-a"
    assert [(p["baseline"], p["candidate"]) for p in data["pairs"]] == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]
    first = data["pairs"][0]
    assert first["delta"] == 0.0 and first["flips"]["pass_to_fail"] == 1
    assert [item["id"] for item in first["items"]] == ["i0", "i1"]
    assert first["items"][0]["baseline_answer"] == "<b>a</b> 0" and "by_tag" not in first
    single = make_run(tmp_path / "single", {"a": BASE})
    with RunStore.existing(single) as store:
        assert build_report(store).data["compare"] is None


def test_compare_tab_shows_both_answers_as_text(browser: Browser, tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", {"a": BASE, "b": CAND, "c": [(False, False)] * 4})
    out = tmp_path / "report.html"
    assert run_cli("report", str(run), "-o", str(out)).returncode == 0
    page, trouble = open_page(browser, out.as_uri())
    page.locator(".tab[data-tab=compare]").click()
    delta = page.locator("[data-role=delta]")
    expect(delta).to_contain_text("0.00 [\u221225.0, +37.5] points")  # signed, with U+2212
    expect(delta).to_contain_text("4 paired items")
    moved = page.locator(".cmp-item[data-item=i0]")
    expect(moved.locator("[data-role=answer]")).to_have_text(["<b>a</b> 0", "<b>b</b> 0"])
    assert moved.locator("[data-role=answer] b").count() == 0
    expect(moved.locator(".cmp-flips")).to_contain_text("met → unmet: first check of 0")
    page.locator("[data-control=pair] button", has_text="a → c").click()
    expect(delta).to_contain_text("\u221262.50 [\u2212100.0, \u221225.0] points")
    assert not trouble, trouble
