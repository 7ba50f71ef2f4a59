"""The labelling page (`view RUN --annotate`) in a real headless browser (Debian's chromium
through Playwright): labels survive a reload, two tabs labelling at once lose nothing, hostile
text stays text, and the page's own origin cannot post a label without its token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from checkbench.store import RunStore
from tests.report.annotate_run import HOSTILE, HOSTILE_ITEM, build_labelling_run
from tests.report.report_run import serving
from tests.report.test_browser import browser  # noqa: F401 (the fixture)


@pytest.fixture()
def labelling(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(run dir, the /annotate address) of a fresh run served for alice to label."""
    run_dir = tmp_path / "run"
    build_labelling_run(run_dir)
    with serving(run_dir, "--annotate", "--annotator", "alice") as url:
        yield run_dir, f"{url}annotate"


def open_queue(browser: Browser, url: str) -> tuple[Page, list[str]]:  # noqa: F811
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    trouble: list[str] = []
    page.on("pageerror", lambda error: trouble.append(f"page error: {error}"))
    page.on("console", lambda m: trouble.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.locator("[data-role=queue][data-ready=true]").wait_for()
    return page, trouble


def mark(page: Page, index: int, verdict: str, note: str = "") -> None:
    """Write a note on the index-th check shown, then press Pass or Fail."""
    entry = page.locator("section.entry").nth(index)
    if note:
        entry.locator("textarea").fill(note)
    entry.locator(f"button[data-verdict={verdict}]").click()


def shown_labels(page: Page) -> dict[int, tuple[str, str]]:
    """index -> (pass/fail, note) of the labelled checks on the page."""
    out = {}
    for entry in page.locator("section.entry").all():
        label = entry.get_attribute("data-label")
        if label:
            note = entry.locator("textarea").input_value()
            out[int(entry.get_attribute("data-index") or -1)] = (label, note)
    return out


def human_labels(run_dir: Path) -> dict[tuple[str, str, str], bool | None]:
    with RunStore.existing(run_dir) as store:
        return {(v.item_id, v.model, v.check_id): v.passed for v in store.verdicts("human:alice")}


def test_five_labels_are_there_after_a_reload(
    browser: Browser,  # noqa: F811
    labelling: tuple[Path, str],
) -> None:
    run_dir, url = labelling
    page, trouble = open_queue(browser, url)
    wanted = {0: ("fail", "misses it"), 1: ("pass", ""), 2: ("pass", ""), 5: ("fail", "")}
    wanted[7] = ("pass", "ok <b>really</b>")
    for index, (verdict, note) in wanted.items():
        mark(page, index, verdict, note)
        expect(page.locator("section.entry").nth(index).locator(".saved")).to_have_text("Saved")
    expect(page.locator("[data-role=status]")).to_contain_text("5 labelled by alice")
    page.reload()
    page.locator("[data-role=queue][data-ready=true]").wait_for()
    assert shown_labels(page) == wanted
    expect(page.locator("[data-role=status]")).to_contain_text("48 checks in the queue; 5 labelled")
    assert len(human_labels(run_dir)) == 5
    # Relabelling replaces: the first check passes now, with its note kept.
    mark(page, 0, "pass")
    expect(page.locator("section.entry").nth(0)).to_have_attribute("data-label", "pass")
    page.reload()
    page.locator("[data-role=queue][data-ready=true]").wait_for()
    assert shown_labels(page)[0] == ("pass", "misses it")
    assert trouble == []
    page.close()


def test_two_tabs_labelling_at_once_lose_nothing(
    browser: Browser,  # noqa: F811
    labelling: tuple[Path, str],
) -> None:
    run_dir, url = labelling
    first, trouble_1 = open_queue(browser, url)
    second, trouble_2 = open_queue(browser, url + "#page=1")
    for index in range(10):  # clicks interleaved, none waiting for the other's save
        mark(first, index, "pass" if index % 2 else "fail")
        mark(second, index, "fail")
    for page in (first, second):
        expect(page.locator(".saved", has_text="Saved")).to_have_count(10)
    labels = human_labels(run_dir)
    assert len(labels) == 20
    assert sum(passed is True for passed in labels.values()) == 5
    for page, start in ((first, 0), (second, 20)):
        page.reload()
        page.locator("[data-role=queue][data-ready=true]").wait_for()
        assert sorted(shown_labels(page)) == list(range(start, start + 10))
    expect(first.locator("[data-role=status]")).to_contain_text("20 labelled by alice")
    assert trouble_1 == trouble_2 == []


def test_hostile_text_stays_text_and_a_post_without_the_token_is_refused(
    browser: Browser,  # noqa: F811
    labelling: tuple[Path, str],
) -> None:
    run_dir, url = labelling
    page, _ = open_queue(browser, url)
    page.evaluate("location.hash = 'page=1'")
    hostile = page.locator(f"section.entry[data-item={HOSTILE_ITEM}]").first
    hostile.wait_for()
    assert HOSTILE in hostile.locator(".response").inner_text()
    assert hostile.locator(".response img, .response script").count() == 0
    assert page.evaluate("window.__pwned") is None
    body = json.dumps({"item_id": "q0", "model": "m1", "check_id": "c1", "passed": True})
    status = page.evaluate(
        """async (body) => (await fetch('/api/annotate/label', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body})).status""",
        body,
    )
    assert status == 403
    assert human_labels(run_dir) == {}
    page.close()
