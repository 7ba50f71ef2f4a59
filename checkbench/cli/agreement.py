"""`checkbench agreement`: judges' verdicts on a run against human ones or a reference
judge's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from typer import _click

from checkbench import api
from checkbench.cli import app
from checkbench.cli.judges_render import print_human_agreement, print_reference_agreement
from checkbench.console.options import AsJson, JudgeIds, ReferenceFile, ReferenceJudge, Unscored


@app.command()
def agreement(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with judge verdicts.")],
    human: Annotated[
        Path | None,
        typer.Option(help="JSONL of human verdicts: item_id, model, check_id, passed."),
    ] = None,
    reference_judge: ReferenceJudge = None,
    reference_file: ReferenceFile = None,
    judge_id: JudgeIds = None,
    unscored_policy: Unscored = "zero",
    as_json: AsJson = False,
) -> None:
    """Judges' agreement per check with human verdicts, or with a reference judge.

    --human: consistency rate (FB-Bench's share of checks where judge and human agree), kappa,
    F1. --reference-judge / --reference-file: agreement, kappa, alpha, sensitivity, specificity,
    and what the judge in the reference's place does to the model scores and their ranking
    (Spearman, Kendall tau_b, the largest shift). Every figure comes with a 95% bootstrap
    interval over items.
    """
    if human is None and reference_judge is None and reference_file is None:
        raise _click.exceptions.UsageError(
            "give --human FILE, --reference-judge ID or --reference-file FILE", ctx
        )
    if human is not None:
        if reference_judge is not None or reference_file is not None:
            raise _click.exceptions.UsageError(
                "--human takes no --reference-judge or --reference-file: run them apart", ctx
            )
        results = api.judge_agreement(run_dir, human, judges=judge_id or ())
        if as_json:
            print(json.dumps([r.model_dump(mode="json") for r in results], indent=2))
        else:
            print_human_agreement(results)
        return
    shifts = api.reference_agreement(
        run_dir,
        reference_judge,
        reference_file=reference_file,
        judges=judge_id or (),
        policy=unscored_policy,
    )
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in shifts], indent=2))
        return
    for result in shifts:
        print_reference_agreement(result)
