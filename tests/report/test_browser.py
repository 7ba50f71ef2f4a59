"""The HTML report in a real headless browser (Debian's chromium through Playwright): the
numbers it shows, the item drill-down, filters, paging, a narrow window, and hostile text that
must stay text."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from checkbench.report.page import PACKED_TYPE
from tests.conftest import run_cli
from tests.report.report_run import (
    HOSTILE_ITEM,
    HOSTILE_MODEL,
    HOSTILE_REASON,
    HOSTILE_RESPONSE,
    JUDGE,
    PAIR_JUDGE,
    Expected,
    build_plain,
    build_run,
    position_bias_rate,
    serving,
)

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Expected:
    return build_run(tmp_path_factory.mktemp("report") / "run")


@pytest.fixture(scope="module")
def report(run: Expected) -> Path:
    out = run.run_dir.parent / "report.html"
    result = run_cli("report", str(run.run_dir), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip("the browser tests need Debian's chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


def open_page(browser: Browser, url: str, width: int = 1280) -> tuple[Page, list[str]]:
    """A fresh page at url; the returned list collects page errors and any dialog."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    trouble: list[str] = []
    page.on("pageerror", lambda error: trouble.append(f"page error: {error}"))
    page.on(
        "dialog", lambda dialog: (trouble.append(f"dialog: {dialog.message}"), dialog.dismiss())
    )
    page.goto(url)
    page.wait_for_selector("nav.tabs")
    return page, trouble


@pytest.fixture()
def page(browser: Browser, report: Path) -> Iterator[Page]:
    page, trouble = open_page(browser, report.as_uri())
    yield page
    assert trouble == []
    page.close()


def visit(page: Page, where: str) -> None:
    """Change the address as a user would (a hashchange) and wait for its tab."""
    page.evaluate(f"location.hash = {json.dumps(where)}")
    tab = page.locator(f".tab[data-tab={where.split('/')[0]}]")
    expect(tab).to_have_attribute("aria-selected", "true")


def item_detail(page: Page, item_id: str) -> Locator:
    """The open item's detail, once it shows that item."""
    detail = page.locator("[data-role=detail]")
    detail.locator(f"[data-item='{item_id}']").wait_for()
    return detail


def listed_ids(page: Page) -> list[str]:
    return page.locator("[data-role=list] .row .id").all_inner_texts()


def match_count(page: Page) -> int:
    """The number of matching items the pager reports ("Items 1-50 of 123 ...")."""
    status = page.locator("[data-role=status]").inner_text()
    return 0 if status.startswith("No items") else int(status.split(" of ")[1].split()[0])


def test_leaderboard_shows_the_numbers_of_leaderboard_json(page: Page, run: Expected) -> None:
    result = run_cli("leaderboard", str(run.run_dir), "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["rows"]
    shown = page.locator("#leaderboard tbody tr")
    assert shown.count() == len(rows) == 3
    for index, row in enumerate(rows):
        line = shown.nth(index)
        assert line.get_attribute("data-model") == row["model"]
        for key in ("overall", "error_correction", "response_maintenance"):
            cell = line.locator(f"td[data-col={key}]")
            low, high = row[f"{key}_ci"]
            assert cell.locator(".score").inner_text() == f"{row[key]:.2f}"
            assert cell.locator(".ci").inner_text() == f"[{low:.1f}, {high:.1f}]"
        numbers = line.locator("td.num").all_inner_texts()
        assert numbers[-2:] == [str(row["n"]), str(row["unscored"])]
    assert page.locator("[data-chart=scatter] circle").count() == 3


def test_item_drill_down_shows_conversation_responses_and_verdicts(
    page: Page, run: Expected
) -> None:
    page.locator(".tab[data-tab=items]").click()
    page.locator("[data-role=list] .row").nth(1).click()
    detail = item_detail(page, run.items[1])
    assert "Question 1: what is 1 + 1? <!-- keep -->" in detail.inner_text()
    assert detail.locator(".response").count() == 3
    verdict = detail.locator(".response[data-model='model-a'] .vrow[data-check=c1]")
    assert "reason 1.0" in verdict.inner_text()
    # An unscored verdict is flagged, with the judge's raw answer one click away.
    unscored_id = sorted(run.unscored["model-a"], key=run.items.index)[0]
    visit(page, f"items/{run.items.index(unscored_id)}")
    block = item_detail(page, unscored_id).locator(".response[data-model='model-a']")
    assert f"Unscored by {JUDGE}: 1 check" in block.locator(".flag").inner_text()
    assert block.locator(".verdict.unscored").count() == 1
    block.locator("details summary").click()
    assert block.locator("details pre").inner_text() == "{not json"
    # An item past the first embedded chunk (250 items) decodes too.
    visit(page, f"items/{len(run.items) - 1}")
    item_detail(page, run.items[-1])


def test_filters_by_model_verdict_and_tag_and_search(page: Page, run: Expected) -> None:
    page.locator(".tab[data-tab=items]").click()
    assert match_count(page) == len(run.items)
    page.select_option("[data-control=model]", label="model-b")
    page.select_option("[data-control=verdict]", value="unscored")
    expected = run.unscored["model-b"] | run.failed["model-b"]
    assert match_count(page) == len(expected)
    assert set(listed_ids(page)) == expected
    page.select_option("[data-control=verdict]", value="error")
    assert set(listed_ids(page)) == run.failed["model-b"]
    page.select_option("[data-control=model]", value="-1")
    page.select_option("[data-control=verdict]", value="")
    page.select_option("[data-control=tag]", label="Mathematics")
    assert match_count(page) == len(run.tagged["Mathematics"])
    assert set(listed_ids(page)) <= run.tagged["Mathematics"]
    page.select_option("[data-control=tag]", value="-1")
    status = page.locator("[data-role=status]")
    page.fill("[data-control=search]", "window.__PWNED=5")
    expect(status).to_have_text(re.compile(r" of 1 \("))
    assert listed_ids(page) == [HOSTILE_ITEM]
    page.fill("[data-control=search]", "")
    expect(status).to_have_text(re.compile(f" of {len(run.items)}$"))


def test_pages_hold_fifty_items_and_switch(page: Page, run: Expected) -> None:
    page.locator(".tab[data-tab=items]").click()
    assert listed_ids(page) == run.items[:50]
    page.locator("[data-act=next]").click()
    assert listed_ids(page) == run.items[50:100]
    assert page.locator("[data-role=page]").inner_text() == "Page 2 of 6"
    page.locator("[data-act=prev]").click()
    assert listed_ids(page)[0] == run.items[0]


def test_hostile_text_renders_as_text_and_runs_nothing(page: Page, run: Expected) -> None:
    visit(page, f"items/{run.items.index(HOSTILE_ITEM)}")
    block = item_detail(page, HOSTILE_ITEM).locator(".response[data-model='model-a']")
    shown = block.locator("[data-role=response]").evaluate("node => node.textContent")
    assert shown == HOSTILE_RESPONSE
    assert HOSTILE_REASON in block.locator(".reason").first.inner_text()
    for tab in ("overview", "breakdowns", "judges", "taxonomy", "run"):
        page.locator(f".tab[data-tab={tab}]").click()
    assert HOSTILE_MODEL in page.locator("[data-panel=overview]").inner_text()
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img, iframe, object, embed").count() == 0
    scripts = page.locator("script").evaluate_all("nodes => nodes.map(n => n.type)")
    assert set(scripts) == {"", "application/json", PACKED_TYPE} and scripts.count("") == 1


def test_meta_evaluation_and_taxonomy_are_shown(page: Page, run: Expected) -> None:
    page.locator(".tab[data-tab=judges]").click()
    judge = page.locator(f"[data-judge='{JUDGE}']")
    tau = judge.locator("[data-metric='Kendall τb']").first.locator(".big").inner_text()
    assert tau == "0.211"  # the examples/ifrewardbench-mini.json predictions, tau_b 0.2110
    assert judge.locator("[data-metric=Agreement]").count() == 2
    compared = page.locator("table[data-table=judges] tbody tr")
    assert compared.all_inner_texts()[0].startswith(JUDGE)  # tied on tau_b, stable order
    assert compared.count() == 2
    bias = page.locator(f"[data-judge='{PAIR_JUDGE}'] [data-meta=position]")
    rate = bias.locator("[data-metric='Position bias rate'] .big").inner_text()
    assert rate == f"{position_bias_rate():.3f}"
    page.locator(".tab[data-tab=taxonomy]").click()
    rows = page.locator("table.tree tbody tr")
    assert rows.count() == 1 + 3 + 4  # overall, the three domains open, their four children
    page.locator("tr[data-path=coding] button.toggle").click()
    assert page.locator("tr[data-path='coding/code generation']").count() == 0
    assert rows.count() == 1 + 3 + 2
    assert page.locator(".profile").count() == 3


def test_narrow_window_has_no_sideways_scroll(browser: Browser, report: Path) -> None:
    page, trouble = open_page(browser, report.as_uri(), width=390)
    for where in ("items/3", "overview", "breakdowns", "judges", "taxonomy", "run"):
        visit(page, where)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, where
    assert trouble == []


def test_served_page_fetches_items_and_searches_on_the_server(
    browser: Browser, run: Expected
) -> None:
    with serving(run.run_dir) as url:
        page, trouble = open_page(browser, url)
        page.locator(".tab[data-tab=items]").click()
        page.locator("[data-act=next]").click()
        page.locator("[data-role=list] .row").first.click()
        assert item_detail(page, run.items[50]).locator(".response").count() == 3
        page.fill("[data-control=search]", "window.__PWNED=1")
        expect(page.locator("[data-role=status]")).to_have_text(re.compile(r" of 1 \("))
        assert listed_ids(page) == [HOSTILE_ITEM]
        assert page.evaluate("window.__pwned") is None
        assert trouble == []
        page.close()


def test_unjudged_run_renders_its_items(browser: Browser, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    build_plain(run_dir, judged=False)
    assert run_cli("report", str(run_dir)).returncode == 0
    page, trouble = open_page(browser, (run_dir / "report.html").as_uri())
    assert "No verdicts yet" in page.locator("[data-panel=overview]").inner_text()
    page.locator(".tab[data-tab=items]").click()
    page.locator("[data-role=list] .row").first.click()
    response = page.locator(".response").first
    assert response.locator("[data-role=response]").inner_text() == "ok"
    assert response.locator(".note").inner_text() == "Not judged yet."
    assert trouble == []
    page.close()
