"""Building a report: each section is a small function from the run to the data it shows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkbench.inputs import output_file
from checkbench.jsonl import write_text_atomic
from checkbench.report.facts import run_facts
from checkbench.report.items import ItemDetails
from checkbench.report.leaderboard import leaderboards
from checkbench.report.meta import meta_section
from checkbench.report.page import render_page
from checkbench.report.run import ReportOptions, RunData
from checkbench.report.taxonomy import taxonomy_section
from checkbench.store import RunStore

Section = Callable[[RunData], Any]
"""Returns the JSON-able data of one part of the page; None leaves the part out."""

SECTIONS: dict[str, Section] = {
    "facts": run_facts,
    "leaderboards": leaderboards,
    "meta": meta_section,
    "taxonomy": taxonomy_section,
}
REPORT_FILE = "report.html"


@dataclass(frozen=True)
class Report:
    """The page data of every section, and the item records behind the drill-down."""

    data: dict[str, Any]
    details: ItemDetails


def build_report(store: RunStore, options: ReportOptions | None = None) -> Report:
    """Read the run once and compute every section."""
    run = RunData(store, options or ReportOptions())
    details = ItemDetails(run)
    data = {name: section(run) for name, section in SECTIONS.items()}
    data["index"] = details.index()
    return Report(data=data, details=details)


def write_report(
    run_dir: str | Path, out: str | Path | None = None, options: ReportOptions | None = None
) -> Path:
    """Write the self-contained HTML report of a run (default RUN_DIR/report.html)."""
    path = output_file(out if out is not None else Path(run_dir) / REPORT_FILE)
    with RunStore.existing(run_dir) as store:
        report = build_report(store, options)
    write_text_atomic(path, render_page(report.data, report.details.chunks()).html)
    return path
