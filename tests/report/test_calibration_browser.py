"""A calibration that says nothing, in a real browser: the report's Judges tab shows its one-line
warning and the `--by` groups that fell back to the whole-run curve, and no page error."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from checkbench.judges.calibration import CalibrationFit, fit_calibration
from tests.judges.test_calibration import _base_rate_label, _run
from tests.report.test_browser import browser, open_page, visit
from tests.report.test_layout import report_of

__all__ = ["browser"]  # the fixture


def _signed(value: float) -> str:
    text = f"{abs(value):.2f}"
    return text if float(text) == 0 else ("+" if value > 0 else "\u2212") + text


def test_the_judges_tab_warns_about_a_constant_calibrated_judge(
    browser: Browser, tmp_path: Path
) -> None:
    store, _ = _run(tmp_path, 40, _base_rate_label)
    fit = CalibrationFit("cheap", "ref", by="tag:scenario", min_group=1000, b=50)
    report = fit_calibration(store, fit)
    store.close()
    assert report.warning is not None
    page, trouble = open_page(browser, report_of(tmp_path / "run").as_uri())
    visit(page, "judges")
    warning = page.locator("[data-panel=judges] [data-warning=calibration]")
    expect(warning).to_have_text(report.warning)
    groups = page.locator("[data-panel=judges] [data-meta=calibration] p.note").first
    expect(groups).to_contain_text("Groups too small to fit, using the whole-run curve: EC:")
    # Score shifts read like every score: two decimals, signed, the minus sign U+2212.
    shifts = page.locator("[data-panel=judges] [data-role=shift]")
    models = [m for side in (report.before, report.after) for m in side.ranking.models]
    expect(shifts).to_have_count(len(models))
    shown = [cell.inner_text().split("\n")[0] for cell in shifts.all()]
    assert shown == [_signed(m.shift.value) for m in models]
    assert trouble == []
    page.close()
