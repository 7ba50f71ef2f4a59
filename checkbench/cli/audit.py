"""`checkbench audit`: every check of a run and the benchmark as a whole, from its verdicts."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, cast, get_args

import typer

from checkbench import api
from checkbench.choices import FlagKind, SimilarityBackend
from checkbench.cli import app
from checkbench.console.options import TABLE, with_output
from checkbench.console.output import Printout

FLAG_KINDS: tuple[FlagKind, ...] = get_args(FlagKind)
FlagName = StrEnum("FlagName", {kind: kind for kind in FLAG_KINDS})
"""The flags as `--drop` takes them (typer takes no list of Literal)."""


@app.command()
@with_output
def audit(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with verdicts.")],
    judge_id: Annotated[
        str | None,
        typer.Option(
            "--judge-id",
            help="The judge whose verdicts are scored (default: the run's first judge by "
            "name); the run's other judges are compared with it.",
        ),
    ] = None,
    similarity: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Cosine at which two checks of an item are near-duplicates."
        ),
    ] = 0.9,
    embedding: Annotated[
        SimilarityBackend,
        typer.Option(
            help="How check texts are embedded: character n-grams, wordllama (build extra), or "
            "auto (wordllama when installed and the texts are in spaced scripts)."
        ),
    ] = "auto",
    drop: Annotated[
        list[FlagName] | None,
        typer.Option(
            "--drop",
            metavar="FLAG",
            help="A flag whose checks the refined benchmark leaves out; repeat for several "
            "(default: every flag).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=0, help="Flagged checks listed in the text.")] = 20,
    write_refined: Annotated[
        Path | None,
        typer.Option(
            "--write-refined",
            help="Write the benchmark without the flagged checks here (JSONL, provenance in "
            "each changed item's meta) and store its checklists in the run for "
            "`leaderboard RUN --checklist refined`.",
        ),
    ] = None,
    printout: Printout = TABLE,
) -> None:
    """Audit every check (pass rate, discrimination, judge disagreement, flips, unscored,
    near-duplicates, placeholders) and the benchmark (separability, rank stability, effective
    number of checks), full and without the flagged checks; no model is called."""
    report = api.audit(
        run_dir,
        api.AuditSettings(
            judge=judge_id,
            similarity=similarity,
            backend=embedding,
            drop=tuple(cast(FlagKind, kind.value) for kind in drop) if drop else FLAG_KINDS,
            limit=limit,
        ),
        write_refined=write_refined,
    )
    from checkbench.audit.render import show_audit

    show_audit(report, printout, limit)
    if write_refined is not None and printout.fmt != "json":
        typer.echo(f"refined benchmark written to {write_refined}", err=True)
