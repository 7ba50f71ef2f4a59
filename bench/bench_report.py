"""Report scale: a synthetic FB-Bench run at two sizes, side by side.

Builds run stores with about 10,000 and 100,000 verdicts (5 models x 4 checks per item, answers
of about 800 characters, one reason per verdict) through the RunStore API, then measures:
- the time `checkbench report` takes to build the HTML file, and the file's size;
- with Debian's chromium (Playwright): the time from navigation to the first render of the page,
  to open the first item, to switch to the next page of 50 items and to run a first search,
  and the page's JavaScript heap.

    python bench/bench_report.py [SMALL_ITEMS LARGE_ITEMS]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from synthetic import fbbench_item, text

from checkbench import api
from checkbench.schema import Response, Usage, Verdict
from checkbench.store import RunStore

MODELS = [f"openai:model-{name}" for name in ("alpha", "beta", "gamma", "delta", "epsilon")]
CHECKS = 4
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--no-first-run", "--disable-sync"]  # fmt: skip


def build_store(run_dir: Path, n_items: int) -> int:
    """A judged run of n_items; returns its number of verdicts."""
    rng = random.Random(n_items)
    items = [fbbench_item(i, rng, CHECKS) for i in range(n_items)]
    reasons = [text(rng, 100) for _ in range(50)]
    verdicts = []
    with RunStore(run_dir) as store:
        store.add_items(items)
        with store.transaction():
            for model in MODELS:
                for item in items:
                    response = Response(
                        item_id=item.id,
                        model=model,
                        content=text(rng, 800),
                        usage=Usage(prompt_tokens=300, completion_tokens=200),
                        latency_s=1.0,
                    )
                    store.put_response(response)
                    for check in item.checklist:
                        unscored = rng.random() < 0.01
                        reason = rng.choice(reasons) if rng.random() < 0.5 else text(rng, 100)
                        verdicts.append(
                            Verdict(
                                item_id=item.id,
                                model=model,
                                judge="openai:judge",
                                check_id=check.id,
                                passed=None if unscored else rng.random() < 0.6,
                                reason=reason,
                            )
                        )
        store.put_verdicts(verdicts)
    return len(verdicts)


# In-page measurements: each returns milliseconds until the page has drawn the change.
_AFTER_FRAME = "new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))"
_NEXT_PAGE = f"""async () => {{
    const t0 = performance.now();
    document.querySelector('[data-act=next]').click();
    await {_AFTER_FRAME};
    return performance.now() - t0;
}}"""
_OPEN_ITEM = f"""async () => {{
    const t0 = performance.now();
    document.querySelector('[data-role=list] .row').click();
    while (!document.querySelector('[data-role=detail] [data-item]')) {{
        await new Promise((done) => requestAnimationFrame(done));
    }}
    await {_AFTER_FRAME};
    return performance.now() - t0;
}}"""
_SEARCH = f"""async (query) => {{
    const box = document.querySelector('[data-control=search]');
    const status = document.querySelector('[data-role=status]');
    const before = status.textContent;
    const t0 = performance.now();
    box.value = query;
    box.dispatchEvent(new Event('input'));
    while (status.textContent === before || status.textContent === 'Searching…') {{
        await new Promise((done) => requestAnimationFrame(done));
    }}
    await {_AFTER_FRAME};
    return performance.now() - t0;
}}"""


def browser_figures(html: Path) -> dict[str, float]:
    """Times in a headless chromium, or {} when chromium or Playwright is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    if not Path(CHROMIUM).exists():
        return {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(html.as_uri(), wait_until="load", timeout=120_000)
        page.wait_for_selector("#leaderboard")
        render = page.evaluate("performance.getEntriesByName('cb-rendered')[0].startTime")
        page.locator(".tab[data-tab=items]").click()
        figures = {
            "first render (ms)": render,
            "open first item (ms)": page.evaluate(_OPEN_ITEM),
            "next page of 50 (ms)": page.evaluate(_NEXT_PAGE),
            "first search, incl. 250 ms debounce (ms)": page.evaluate(_SEARCH, "zzz-absent"),
            "JS heap after search (MB)": page.evaluate("performance.memory.usedJSHeapSize") / 1e6,
        }
        browser.close()
    return figures


def measure(n_items: int, tmp: Path) -> tuple[int, dict[str, float]]:
    run_dir = tmp / f"run-{n_items}"
    verdicts = build_store(run_dir, n_items)
    start = time.perf_counter()
    html = api.report(run_dir)
    figures: dict[str, Any] = {
        "report build (s)": time.perf_counter() - start,
        "file size (MB)": html.stat().st_size / 1e6,
    }
    figures.update(browser_figures(html))
    return verdicts, figures


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:3]] or [500, 5000]
    with tempfile.TemporaryDirectory() as tmp:
        (small_n, small), (large_n, large) = (measure(n, Path(tmp)) for n in sizes)
    left, right = f"{small_n:,} verdicts", f"{large_n:,} verdicts"
    print(f"{'':44} {left:>16} {right:>16} {'ratio':>7}")
    for name, value in small.items():
        other = large.get(name, float("nan"))
        ratio = other / value if value else float("nan")
        print(f"{name:44} {value:16.2f} {other:16.2f} {ratio:7.1f}x")


if __name__ == "__main__":
    main()
