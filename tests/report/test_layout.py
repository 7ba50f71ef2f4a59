"""The report's layout in a real browser (Debian's chromium through Playwright) at a phone's
width and a wide desktop's: no sideways scrolling of the page, no table cut without a cue,
nothing sticking out of its card, code in monospace, judge ids whole; and a run with 30 models
whose every point, bar and chip names its model in a colour and marker of its own."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.conftest import run_cli
from tests.report.report_layout_runs import (
    CODE_RESPONSE,
    JUDGES,
    MODELS,
    build_many,
    build_one_scenario,
)
from tests.report.report_run import build_run
from tests.report.test_browser import browser, open_page, visit

__all__ = ["browser"]  # the fixture, shared with the other browser tests

WIDTHS = [400, 1400]
TABS = ["overview", "breakdowns", "judges", "taxonomy", "items", "items/1", "run", "compare"]

LAYOUT_PROBLEMS = (Path(__file__).parent / "report_layout.js").read_text(encoding="utf-8")
"""A function of the page: what is wrong with the layout of the tab shown."""


def report_of(run_dir: Path) -> Path:
    out = run_dir.parent / "report.html"
    result = run_cli("report", str(run_dir), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def standard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run of tests/report/report_run.py: every case, hostile text, three models."""
    run = build_run(tmp_path_factory.mktemp("standard") / "run")
    return report_of(run.run_dir)


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("many") / "run"
    build_many(run_dir)
    return report_of(run_dir)


@pytest.fixture()
def wide(browser: Browser, many: Path) -> Iterator[Page]:
    page, trouble = open_page(browser, many.as_uri(), width=1400)
    yield page
    assert trouble == []
    page.close()


def settle(page: Page) -> None:
    """Wait for the charts that draw once laid out, and the scroll cues they set."""
    page.evaluate("new Promise((done) => requestAnimationFrame(() => setTimeout(done, 150)))")


def layout_problems(page: Page, where: str) -> list[str]:
    visit(page, where)
    if where.startswith("items/"):
        page.locator("[data-role=detail] [data-item]").wait_for()
    settle(page)
    return [f"{where}: {problem}" for problem in page.evaluate(LAYOUT_PROBLEMS)]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["standard", "many"])
def test_every_tab_fits_its_window(
    browser: Browser, request: pytest.FixtureRequest, which: str, width: int
) -> None:
    report = request.getfixturevalue(which)
    page, trouble = open_page(browser, report.as_uri(), width=width)
    problems = [p for where in TABS for p in layout_problems(page, where)]
    assert problems == []
    if width >= 1400:  # a wide window shows the leaderboard and the run's tables whole
        for where in ("overview", "run", "items/1"):
            visit(page, where)
            settle(page)
            boxes = page.locator(f"[data-panel={where.split('/')[0]}] .scroll-box")
            assert boxes.count() > 0
            for box in boxes.all():
                if box.is_visible():
                    assert box.get_attribute("data-overflow") == "false", where
    assert trouble == []
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_table_wider_than_its_card_scrolls_inside_it_with_a_cue(
    browser: Browser, many: Path, width: int
) -> None:
    page, trouble = open_page(browser, many.as_uri(), width=width)
    visit(page, "taxonomy")  # 30 model columns: wider than any window
    settle(page)
    box = page.locator("[data-panel=taxonomy] .scroll-box").first
    wrap = box.locator(".table-wrap")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    expect(box).to_have_attribute("data-overflow", "true")
    assert "more-right" in (box.get_attribute("class") or "")
    assert "more-left" not in (box.get_attribute("class") or "")
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    expect(box).to_have_class(re.compile(r"\bmore-left\b"))
    assert "more-right" not in (box.get_attribute("class") or "")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    assert trouble == []
    page.close()


def test_code_in_responses_is_monospace_and_still_only_text(wide: Page) -> None:
    visit(wide, "items/1")
    response = wide.locator(".response").first.locator("[data-role=response]")
    assert response.evaluate("n => n.textContent") == CODE_RESPONSE
    assert response.locator("script, img, a, b, i").count() == 0
    block = response.locator("code.block")
    assert block.count() == 1
    assert "def shortest(xs):" in block.inner_text()
    inline = response.locator("code.inline")
    assert inline.all_inner_texts() == ["`sorted(xs, key=len)`", "`shortest(words)`"]
    fonts = [el.evaluate("n => getComputedStyle(n).fontFamily") for el in (block, inline.first)]
    prose = response.evaluate("n => getComputedStyle(n).fontFamily")
    for font in fonts:
        assert "monospace" in font and font != prose
    # The conversation's code is monospace too.
    message = wide.locator(".msg.assistant code.block")
    assert "monospace" in message.evaluate("n => getComputedStyle(n).fontFamily")


@pytest.mark.parametrize("width", WIDTHS)
def test_judge_ids_show_whole(browser: Browser, many: Path, width: int) -> None:
    page, trouble = open_page(browser, many.as_uri(), width=width)
    picker = page.locator("#leaderboard [data-control=judge] button")
    assert picker.all_inner_texts() == JUDGES
    for button in picker.all():
        assert button.evaluate(
            "b => b.scrollWidth <= b.clientWidth && b.scrollHeight <= b.clientHeight + 1"
        )
    picker.nth(1).click()
    expect(
        page.locator("#leaderboard [data-control=judge] button[aria-pressed=true]")
    ).to_have_text(JUDGES[1])
    visit(page, "run")
    heads = page.locator("[data-panel=run] th").all_inner_texts()
    for judge in JUDGES:
        assert any(judge.lower() in head.lower() for head in heads)
    visit(page, "items/1")
    # Item details decode lazily: wait for the first response's judges before reading them.
    names = page.locator(".response").first.locator(".jname")
    expect(names.first).to_be_attached()
    assert set(names.all_inner_texts()) == set(JUDGES)
    assert trouble == []
    page.close()


def colour_of(locator: Locator) -> str:
    return locator.evaluate("n => getComputedStyle(n).backgroundColor")


def test_thirty_models_each_have_a_colour_and_marker_of_their_own(wide: Page) -> None:
    visit(wide, "breakdowns")
    legend = wide.locator(".legend button")
    assert legend.count() == len(MODELS)
    styles = {}
    for button in legend.all():
        marker = button.locator(".dot")
        styles[button.inner_text()] = (colour_of(marker), marker.get_attribute("data-shape"))
    assert set(styles) == set(MODELS)
    assert len(set(styles.values())) == len(MODELS)  # colour and marker together distinct
    assert len({colour for colour, _ in styles.values()}) == len(MODELS)  # no colour repeats
    # Every bar names its model, in that model's colour.
    rows = wide.locator("[data-panel=breakdowns] [data-chart=bars] .bar-row")
    assert rows.count() == len(MODELS) * 4  # four tasks
    seen: dict[str, str] = {}
    for row in rows.all():
        name = row.locator(".bar-name").inner_text()
        assert name == row.get_attribute("data-model")
        fill = row.locator(".fill")
        if fill.count():
            seen.setdefault(name, colour_of(fill))
            assert colour_of(fill) == seen[name] == styles[name][0]
    assert len(set(seen.values())) == len(seen)
    # The overview's bars name their models too.
    visit(wide, "overview")
    preview = wide.locator("[data-panel=overview] [data-chart=bars] .bar-row")
    assert preview.count() == len(MODELS) * 4
    assert {row.locator(".bar-name").inner_text() for row in preview.all()} == set(MODELS)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_scatter_point_is_labelled_or_keyed(browser: Browser, many: Path, width: int) -> None:
    page, trouble = open_page(browser, many.as_uri(), width=width)
    settle(page)
    chart = page.locator("[data-chart=scatter] svg")
    points = chart.locator("g[data-model]")
    assert points.count() == len(MODELS)
    key = page.locator("[data-role=scatter-legend]")
    labels = {
        label.get_attribute("data-label"): label.text_content()
        for label in chart.locator("text[data-label]").all()
    }
    assert set(labels) == set(MODELS)
    keyed = key.is_visible()
    for point in points.all():
        model = point.get_attribute("data-model")
        if labels[model] == model:
            continue
        assert keyed, f"{model} has neither its name nor a key"
        assert labels[model] == point.get_attribute("data-key")
        entry = key.locator(f"li[data-key='{labels[model]}']")
        assert entry.get_attribute("data-model") == model
        assert entry.locator(".key-name").inner_text() == model
    # Labels stay inside the chart and off each other.
    boxes = chart.evaluate(
        """svg => { const f = svg.getBoundingClientRect();
        return [...svg.querySelectorAll('text[data-label]')].map((t) => {
          const r = t.getBoundingClientRect();
          return [r.left - f.left, r.top - f.top, r.right - f.left, r.bottom - f.top,
            f.width, f.height]; }); }"""
    )
    for left, top, right, bottom, w, h in boxes:
        assert left >= 0 and top >= 0 and right <= w + 0.5 and bottom <= h + 0.5
    # No label sits on its own point's whiskers (nor, where the chart has room, on another's).
    covered = chart.evaluate(
        """svg => { const over = (a, b) => a.left < b.right && b.left < a.right
            && a.top < b.bottom && b.top < a.bottom;
          const whiskers = [...svg.querySelectorAll('line.whisk')].map((l) => {
            const r = l.getBoundingClientRect();  // a line's box: pad it by its stroke
            return { left: r.left - 0.7, right: r.right + 0.7, top: r.top - 0.7,
              bottom: r.bottom + 0.7, model: l.closest('g[data-model]').dataset.model }; });
          return [...svg.querySelectorAll('text[data-label]')].flatMap((t) => {
            const r = t.getBoundingClientRect();
            return whiskers.filter((w) => over(r, w)).map((w) => [t.dataset.label, w.model]);
          }); }"""
    )
    assert [pair for pair in covered if pair[0] == pair[1]] == []
    assert covered == [] or width < 1000
    # Searching the key finds a model by part of its name and lights up its point alone.
    if keyed:
        page.fill("[data-control=scatter-search]", "mistral-small-24b-instruct-2501-v2")
        target = "mistralai/Mistral-Small-24B-Instruct-2501-v2"
        expect(key.locator("li:not([hidden])")).to_have_count(1)
        expect(key.locator("li:not([hidden])")).to_have_attribute("data-model", target)
        expect(chart.locator("g.hit")).to_have_count(1)
        assert chart.locator("g.hit").get_attribute("data-model") == target
        expect(chart.locator(".focus-label")).to_have_text(target)
        assert chart.locator("g.dim").count() == len(MODELS) - 1
    assert trouble == []
    page.close()


def test_item_chips_name_their_models(wide: Page) -> None:
    visit(wide, "items")
    chips = wide.locator("[data-role=list] .row").first.locator(".chips .chip")
    expect(chips).to_have_count(len(MODELS))
    assert [c.locator(".chip-model").inner_text() for c in chips.all()] == sorted(MODELS)


def test_one_scenario_run_says_why_there_is_no_scatter(browser: Browser, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    build_one_scenario(run_dir)
    page, trouble = open_page(browser, report_of(run_dir).as_uri(), width=1400)
    empty = page.locator("[data-role=scatter-empty]")
    expect(empty).to_contain_text("error-correction items only")
    assert page.locator("[data-chart=scatter] svg").count() == 0
    assert trouble == []
    page.close()


def test_layout_problems_are_caught(browser: Browser, many: Path) -> None:
    """The checks above see a page that scrolls sideways, a table cut with no cue and a
    control sticking out of its card."""
    page, trouble = open_page(browser, many.as_uri(), width=400)
    visit(page, "run")
    settle(page)
    assert page.evaluate(LAYOUT_PROBLEMS) == []
    page.evaluate(
        """() => {
        const box = document.querySelector('[data-panel=run] .scroll-box');
        box.classList.remove('more-right'); box.dataset.overflow = 'false';
        const card = document.querySelector('[data-panel=run] .card');
        const wide = document.createElement('div');
        wide.style.width = '900px';
        wide.textContent = 'x';
        card.append(wide);
        }"""
    )
    problems = json.dumps(page.evaluate(LAYOUT_PROBLEMS))
    assert "page scrolls sideways" in problems
    assert "table scrolls with no cue" in problems
    assert "sticks out of its card" in problems
    assert trouble == []
    page.close()
