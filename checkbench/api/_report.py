"""A run as a page to look at: the self-contained HTML report, or the same page served."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from checkbench.report.assemble import write_report
from checkbench.report.run import ReportOptions, report_options
from checkbench.report.server import serve
from checkbench.scoring import UnscoredPolicy


def report(
    run_dir: str | Path,
    out: str | Path | None = None,
    *,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    prices: Sequence[str] = (),
    taxonomy: str | Path | None = None,
) -> Path:
    """Write the run's self-contained HTML report (default RUN_DIR/report.html) of the stored
    judge id `judge` (default: every judge). Models are billed at the models-file prices the
    run stored; `prices` ("MODEL=INPUT,OUTPUT[,BATCH_DISCOUNT]" in USD per million tokens)
    override them. Returns the file written."""
    return write_report(run_dir, out, _options(judge, policy, prices, taxonomy))


def view(
    run_dir: str | Path,
    *,
    port: int = 8765,
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    prices: Sequence[str] = (),
    taxonomy: str | Path | None = None,
    ready: Callable[[str], None] = print,
    annotator: str | None = None,
) -> None:
    """Serve the report on http://127.0.0.1:PORT/ (item pages fetched on demand) until
    interrupted; `ready` receives the address once the server listens. With `annotator` also
    the labelling page /annotate, whose labels go into the run as judge `human:ANNOTATOR`."""
    options = _options(judge, policy, prices, taxonomy)
    serve(run_dir, options, port=port, ready=ready, annotator=annotator)


def _options(
    judge: str | None, policy: UnscoredPolicy, prices: Sequence[str], taxonomy: str | Path | None
) -> ReportOptions:
    """The report's options from their command-line spellings, the prices checked before the
    taxonomy file is read (SCAN's loader: the report layer imports no protocol)."""
    options = report_options(judge, policy, prices)
    if taxonomy is None:
        return options
    from checkbench.scan.tree import load_taxonomy

    return replace(options, taxonomy=load_taxonomy(taxonomy))
