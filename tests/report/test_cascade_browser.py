"""The report's Cascade tab in a real browser: its figures are those `checkbench judge
--escalate-to ... --json` printed (share escalated, who decided, agreement with the reference
and its intervals, costs), and figures over fewer than FEW_UNITS units carry the terminal's
mark and reason."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from checkbench import api
from checkbench.stats.estimate import Stat
from checkbench.stats.notation import FEW_MARK, FEW_NOTE, FEW_REASON, FEW_UNITS
from tests.conftest import run_cli
from tests.judges.test_cascade import Judges, _run
from tests.report.test_browser import browser, open_page, visit
from tests.report.test_layout import report_of

__all__ = ["browser"]  # the fixture


def _cascade(tmp_path: Path, *flags: str) -> tuple[Path, api.CascadeSummary]:
    run_dir = _run(tmp_path)
    with ExitStack() as stack:
        judges = Judges(run_dir, tmp_path, stack, cheap_priced=True)
        result = run_cli(
            "judge", str(run_dir), "--judge", "cheap", "--escalate-to", "strong",
            "--models", str(judges.models), "--reference-judge", "ref", "--json", *flags,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return run_dir, api.CascadeSummary.model_validate_json(result.stdout)


def _usd(cell: Locator) -> float:
    text = cell.inner_text().strip()
    assert text.startswith("$"), text
    return float(text[1:])


def _stat_cell(cell: Locator, st: Stat) -> None:
    """A table cell shows the statistic, its 95% interval, and the few-units mark when due."""
    expect(cell).to_contain_text(f"{st.value:.3f}")
    expect(cell).to_contain_text(f"[{st.low:.2f}, {st.high:.2f}]")
    few = cell.locator("[data-few]")
    if st.units < FEW_UNITS:  # here, the items resampled
        expect(few).to_have_text(FEW_MARK)
        expect(few).to_have_attribute("title", FEW_REASON)
    else:
        expect(few).to_have_count(0)


@pytest.mark.parametrize("flags", [("--band", "0.4,0.6"), ("--band", "0.2,0.8", "--limit", "2")])
def test_the_cascade_tab_shows_what_the_cli_printed(
    browser: Browser, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    run_dir, s = _cascade(tmp_path, *flags)
    page, trouble = open_page(browser, report_of(run_dir).as_uri())
    visit(page, "cascade")
    card = page.locator(f"[data-panel=cascade] [data-cascade='{s.judge}']")
    expect(card).to_have_count(1)
    share = card.locator("[data-metric='Share escalated']")
    expect(share.locator(".big")).to_have_text(f"{s.escalated_share:.3f}")
    expect(share).to_contain_text(f"{s.escalated} of {s.checks} checks")
    # Who decided: the strong judge the escalated checks, the cheap judge the rest.
    decided = card.locator("[data-table=cascade-decided] tbody tr")
    expect(decided).to_have_count(2 if 0 < s.escalated < s.checks else 1)
    strong = card.locator(f"[data-table=cascade-decided] tr[data-decider='{s.strong}'] td")
    expect(strong.nth(1)).to_have_text(str(s.escalated))
    if s.escalated < s.checks:
        cheap = card.locator(f"[data-table=cascade-decided] tr[data-decider='{s.cheap}'] td")
        expect(cheap.nth(1)).to_have_text(str(s.checks - s.escalated))
    # Agreement with the reference, the cascade's and the cheap judge's alone.
    for row, a in (("Cascade", s.agreement), ("Cheap judge alone", s.cheap_agreement)):
        cells = card.locator(f"[data-table=cascade-agreement] tr[data-row='{row}'] td")
        expect(cells).to_have_count(4)
        for k, st in enumerate((a.agreement, a.kappa, a.balanced_accuracy), start=1):
            if st.value is not None and st.low is not None:
                _stat_cell(cells.nth(k), st)
    flagged = [
        st
        for a in (s.agreement, s.cheap_agreement)
        for st in (a.agreement, a.kappa, a.balanced_accuracy)
        if st.value is not None and st.units < FEW_UNITS
    ]
    note = card.locator("[data-few-note]")
    if flagged:
        expect(note).to_have_text(FEW_NOTE + ".")
    else:
        expect(note).to_have_count(0)
    # The costs, as printed to the cent's first two significant digits.
    for name in ("cheap_cost_usd", "strong_cost_usd", "all_strong_cost_usd", "net_saved_usd"):
        cell = card.locator(f"[data-table=cascade-cost] [data-figure={name}] td").nth(1)
        expected = getattr(s, name)
        assert expected is not None
        assert _usd(cell) == pytest.approx(expected, rel=0.05, abs=0.005), name
    assert trouble == []
    page.close()
