"""`checkbench report` and `checkbench view`: a run as a page to look at."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Annotated

import typer

from checkbench import api
from checkbench.cli import app
from checkbench.console.options import JudgeIdOrAll, Unscored
from checkbench.console.render import console
from checkbench.errors import InputError

RunDir = Annotated[Path, typer.Argument(help="Run directory.")]
Prices = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        help="MODEL=INPUT,OUTPUT[,BATCH_DISCOUNT]: USD per million prompt and completion "
        "tokens, e.g. openai:gpt-4o=2.5,10; batched calls cost half, or 1 - BATCH_DISCOUNT; "
        "repeat per model. Overrides the price the models file gave MODEL when it ran.",
    ),
]
TaxonomyFile = Annotated[
    Path | None,
    typer.Option("--taxonomy", help="Capability taxonomy JSON for the taxonomy tree."),
]


@app.command()
def report(
    run_dir: RunDir,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="HTML file (default RUN_DIR/report.html).")
    ] = None,
    judge_id: JudgeIdOrAll = None,
    unscored_policy: Unscored = "zero",
    price: Prices = None,
    taxonomy: TaxonomyFile = None,
) -> None:
    """Write one self-contained HTML report of a run: it opens offline in any browser."""
    path = api.report(
        run_dir,
        out,
        judge=judge_id,
        policy=unscored_policy,
        prices=price or [],
        taxonomy=taxonomy,
    )
    size = path.stat().st_size / 1e6
    console.print(f"report written to [bold]{path}[/] ({size:.1f} MB)", highlight=False)


@app.command()
def view(
    run_dir: RunDir,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1.")] = 8765,
    judge_id: JudgeIdOrAll = None,
    unscored_policy: Unscored = "zero",
    price: Prices = None,
    taxonomy: TaxonomyFile = None,
    annotate: Annotated[
        bool,
        typer.Option(
            "--annotate",
            help="Also serve /annotate, where you mark checks pass or fail (with a note), "
            "the most useful first; labels are kept in the run as judge human:NAME.",
        ),
    ] = False,
    annotator: Annotated[
        str | None,
        typer.Option(help="Your name on the labels (implies --annotate; default: your login)."),
    ] = None,
) -> None:
    """Serve the report on localhost, for runs too large for one file; Ctrl-C stops.

    The page is the one `report` writes, but it fetches items page by page. With --annotate
    the run is opened for writing (no other command writes it meanwhile).
    """
    if annotate and annotator is None:
        try:
            annotator = getpass.getuser()
        except (OSError, KeyError):
            raise InputError(
                "no login name to label as: give --annotator", field="annotator"
            ) from None

    def ready(url: str) -> None:
        console.print(f"report of {run_dir} at [bold]{url}[/] (Ctrl-C stops)", highlight=False)
        if annotator is not None:
            console.print(f"label checks as {annotator} at [bold]{url}annotate[/]", highlight=False)

    api.view(
        run_dir,
        port=port,
        judge=judge_id,
        policy=unscored_policy,
        prices=price or [],
        taxonomy=taxonomy,
        ready=ready,
        annotator=annotator,
    )
