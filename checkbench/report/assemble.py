"""Building a report: each section is a small function from the run to the data it shows; the
core sections first, then each registered protocol's own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkbench import registry
from checkbench.inputs import output_file
from checkbench.jsonl import write_text_atomic
from checkbench.report.audit import audit_section
from checkbench.report.cascade import cascade_section
from checkbench.report.compare import compare_section
from checkbench.report.facts import run_facts
from checkbench.report.items import ItemDetails
from checkbench.report.judges import judges_section
from checkbench.report.leaderboard import leaderboards
from checkbench.report.page import render_page
from checkbench.report.run import ReportOptions, RunData
from checkbench.store import RunStore

Section = Callable[[RunData], Any]
"""Returns the JSON-able data of one part of the page; None leaves the part out."""

SECTIONS: dict[str, Section] = {
    "facts": run_facts,
    "leaderboards": leaderboards,
    "meta": judges_section,
    "cascade": cascade_section,
    "compare": compare_section,
    "audit": audit_section,
}
"""The core sections, by their key in the page data."""
REPORT_FILE = "report.html"


def sections() -> dict[str, Section]:
    """The core sections, then the registered protocols' sections."""
    found = dict(SECTIONS)
    for protocol in registry.protocols():
        found.update(protocol.sections)
    return found


@dataclass(frozen=True)
class Report:
    """The page data of every section, and the item records behind the drill-down."""

    data: dict[str, Any]
    details: ItemDetails


def build_report(
    store: RunStore, options: ReportOptions | None = None, *, served: bool = False
) -> Report:
    """Read the run once and compute every section. The index lists every item when the page
    is served (records come from the server) or when the file can embed them all."""
    run = RunData(store, options or ReportOptions())
    details = ItemDetails(run)
    data = {name: section(run) for name, section in sections().items()}
    data["index"] = details.index(rows=served or len(details) <= run.options.embed_items)
    return Report(data=data, details=details)


def write_report(
    run_dir: str | Path, out: str | Path | None = None, options: ReportOptions | None = None
) -> Path:
    """Write the self-contained HTML report of a run (default RUN_DIR/report.html): with
    every item's record when there are at most `options.embed_items`, else the aggregates and
    a pointer to `checkbench view`, which reads item records a page at a time."""
    with RunStore.existing(run_dir, read_only=True) as store:  # a bad run is the error to show
        path = output_file(out if out is not None else Path(run_dir) / REPORT_FILE)
        report = build_report(store, options)
        chunks = report.details.chunks() if report.data["index"]["items"] else []
        page = render_page(report.data, chunks)
    write_text_atomic(path, page.html, page.encoding)
    return path
