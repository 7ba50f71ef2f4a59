"""A judge meta-evaluation's report (`checkbench meta ... --out RUN`, then `checkbench report
RUN`) in a real browser at a phone's width and a wide desktop's: its overview and Judges tab
rank the judges, named whole, never the benchmark's responses ("0", "1", "2"); no tab scrolls
sideways or cuts a table cell; code in a response is monospace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import ROOT, run_cli
from tests.report.report_layout_runs import CODE_RESPONSE
from tests.report.test_browser import browser, open_page, visit
from tests.report.test_layout import WIDTHS, layout_problems, report_of

__all__ = ["browser"]  # the fixture, shared with the other browser tests

JUDGES = ["openai:meta-llama/Llama-3.1-70B-Instruct-Turbo", "openai:judge-b"]
"""Two judges, one with a long id that must wrap rather than be cut."""
TABS = ["overview", "judges", "items", "items/1", "run"]
VERDICTS = json.dumps(
    {
        **{str(n): {"reason": "met", "verdict": "yes" if n % 2 else "no"} for n in range(3)},
        "reason": "A follows more of the instruction",
        "winner": "A",
    }
)
"""What the stub judge answers: verdicts on three constraints, and A in a pairwise comparison."""


@pytest.fixture(scope="module")
def meta_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a meta run of two judges, both paradigms, over the tour's example file
    with one response holding code."""
    tmp = tmp_path_factory.mktemp("meta")
    records = json.loads((ROOT / "examples" / "ifrewardbench-mini.json").read_text())
    records[0]["responses"][1]["response"] = CODE_RESPONSE
    source, run_dir = tmp / "ifrb.json", tmp / "meta"
    source.write_text(json.dumps(records), encoding="utf-8")
    judges = [arg for judge in JUDGES for arg in ("--judge", judge)]
    with OpenAIServer(Reply(body=completion(VERDICTS))) as server:
        args = ["meta", str(source), *judges, "--paradigm", "both", "--out", str(run_dir)]
        result = run_cli(*args, "--base-url", server.base_url)
    assert result.returncode == 0, result.stderr
    return report_of(run_dir)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_meta_runs_report_ranks_judges_and_fits_its_window(
    browser: Browser, meta_page: Path, width: int
) -> None:
    page, trouble = open_page(browser, meta_page.as_uri(), width=width)
    problems = [p for where in TABS for p in layout_problems(page, where)]
    assert problems == []
    for where in ("overview", "judges"):
        visit(page, where)
        table = page.locator(f"[data-panel={where}] table[data-table=judges]")
        expect(table).to_have_count(1)
        cells = table.locator("tbody td.name-cell")
        names = ["".join(name.split()) for name in cells.all_inner_texts()]
        assert sorted(names) == sorted(JUDGES), where  # whole, wherever they wrap
        for cell in cells.all():
            assert cell.evaluate("c => c.scrollWidth <= c.clientWidth + 1"), where
    visit(page, "overview")
    assert page.locator("#leaderboard tbody tr").count() == 0  # no ranking of responses
    assert trouble == []
    page.close()


def test_code_in_a_meta_runs_responses_is_monospace(browser: Browser, meta_page: Path) -> None:
    page, trouble = open_page(browser, meta_page.as_uri(), width=400)
    visit(page, "items/0")  # the first item, whose second response is code
    page.locator("[data-role=detail] [data-item]").wait_for()
    block = page.locator("[data-role=response] code.block")
    expect(block).to_have_count(1)
    prose = page.locator("[data-role=response]").first
    font = block.evaluate("n => getComputedStyle(n).fontFamily")
    assert "monospace" in font and font != prose.evaluate("n => getComputedStyle(n).fontFamily")
    assert trouble == []
    page.close()
