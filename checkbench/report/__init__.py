"""The HTML report of a run: one self-contained file (`write_report`) or a local server for
large runs (`serve`). Each part of the page is a section: a small function from the run's
data to JSON (see `build.SECTIONS`); the page's own script draws them."""

from checkbench.report.assemble import SECTIONS, Report, build_report, write_report
from checkbench.report.run import ReportOptions, report_options
from checkbench.report.server import serve

__all__ = [
    "SECTIONS",
    "Report",
    "ReportOptions",
    "build_report",
    "report_options",
    "serve",
    "write_report",
]
