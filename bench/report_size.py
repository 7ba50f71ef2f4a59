"""The report of the 27-model FB-Bench run: its size and how fast it opens.

Makes the 27 judgment files (`fbbench27.py`, from the 6 published ones beside the project),
imports them into a run, writes its report, and prints:
- the file's size (the goal: at most 10 MB) and how long the report took to build;
- in Debian's chromium (Playwright, headless): the time from navigation to the page's first
  render (goal: under 3 s) and to the `load` event, then to open the first item (its block
  inflated on demand) and to run a search over every item's text (every block inflated).

    python bench/report_size.py [WORK_DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_report import _OPEN_ITEM, _SEARCH, CHROMIUM, LAUNCH_ARGS
from fbbench27 import NAMES, synthesize

from checkbench import api
from checkbench.fbbench.api import import_fbbench_judgments

GOAL_MB = 10.0
GOAL_OPEN_S = 3.0


def open_times(html: Path) -> dict[str, float]:
    """Seconds to first render and to load, then ms to open an item and to search, in chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        start = time.perf_counter()
        page.goto(html.as_uri(), wait_until="load", timeout=120_000)
        loaded = time.perf_counter() - start
        page.wait_for_selector("#leaderboard")
        render = page.evaluate("performance.getEntriesByName('cb-rendered')[0].startTime") / 1e3
        page.locator(".tab[data-tab=items]").click()
        figures = {
            "first render (s)": render,
            "load event (s)": loaded,
            "open first item (ms)": page.evaluate(_OPEN_ITEM),
            "search every item, incl. 250 ms debounce (ms)": page.evaluate(_SEARCH, "zzz-absent"),
        }
        browser.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work_dir", nargs="?", type=Path, help="keep the run here (reused)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work_dir or Path(tmp)
        files, run_dir = work / "judgments", work / "run"
        if not (run_dir / "run.sqlite").exists():
            synthesize(files)
            import_fbbench_judgments(files, run_dir)
        start = time.perf_counter()
        html = api.report(run_dir)
        built = time.perf_counter() - start
        size = html.stat().st_size / 1e6
        print(f"report of {len(NAMES)} models x 591 items: {html}")
        print(f"  size {size:.2f} MB (goal <= {GOAL_MB:g} MB), built in {built:.1f} s")
        for name, value in open_times(html).items():
            goal = f" (goal < {GOAL_OPEN_S:g} s)" if name == "first render (s)" else ""
            print(f"  {name}: {value:.2f}{goal}")


if __name__ == "__main__":
    main()
