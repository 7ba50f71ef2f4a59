"""`checkbench meta` (IF-RewardBench judge meta-evaluation) and `checkbench agreement` (judge
verdicts against human ones or a reference judge's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape
from typer import _click

from checkbench import api
from checkbench.choices import MissingVerdicts, NoEdges, PairScope, Paradigm
from checkbench.choices import PairwiseMethod as Method
from checkbench.cli import app
from checkbench.cli.judges_render import print_reference_agreement
from checkbench.cli.meta_render import (
    print_human_agreement,
    print_judge_leaderboard,
    print_meta_report,
)
from checkbench.cli.options import (
    DEFAULT_OPTIONS,
    SPECS,
    AsJson,
    JudgeIds,
    JudgeMode,
    ReferenceFile,
    ReferenceJudge,
    Unscored,
    with_model_options,
)
from checkbench.cli.render import console, exit_if_all_failed, print_stages, report_hint
from checkbench.llm import ModelOptions
from checkbench.steps.progress import RichProgress

TITLE = "Judge meta-evaluation (IF-RewardBench metrics, 95% bootstrap intervals)"
METHODS: dict[str, Method] = {"bradley-terry": "bradley_terry", "elo": "elo"}


@app.command()
@with_model_options
def meta(
    file: Annotated[Path, typer.Argument(help="IF-RewardBench file (JSON list or JSONL).")],
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            "-j",
            help=f"Model to run as judge ({SPECS}); repeat for a judge leaderboard. Without "
            "it, the predictions in FILE are evaluated.",
        ),
    ] = None,
    judge_mode: JudgeMode = "text",
    paradigm: Annotated[
        Paradigm, typer.Option(help="Judge yes/no per constraint (verification), pairwise, both.")
    ] = "verification",
    method: Annotated[
        Literal["bradley-terry", "elo"],
        typer.Option(help="Listwise ranking from pairwise judgments."),
    ] = "bradley-terry",
    pair_scope: Annotated[
        PairScope,
        typer.Option("--pairs", help="Pairs to judge: all pairs of responses, or graph edges."),
    ] = "all",
    ranking: Annotated[
        Literal["auto", "labels", "score"],
        typer.Option(
            help="Without --judge: rank responses by pred_score (score), by the mean of "
            "pred_labels (labels), or auto (score when FILE has any)."
        ),
    ] = "auto",
    no_edges_policy: Annotated[
        NoEdges,
        typer.Option(
            "--no-edges",
            help="Instructions without preference edges: exclude them from accuracy and tau_b, "
            "or score them zero (the released code).",
        ),
    ] = "exclude",
    missing_verdicts: Annotated[
        MissingVerdicts,
        typer.Option(
            help="Released judge outputs (a raw critique per response): constraints the "
            "critique gives no verdict on are 'pass' (padded, as the released metric script "
            "does, which reproduces the published numbers) or 'unscored'."
        ),
    ] = "pass",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Run directory (default: beside FILE, data.json -> data.meta/)."
        ),
    ] = None,
    as_json: AsJson = False,
    options: ModelOptions = DEFAULT_OPTIONS,
) -> None:
    """Meta-evaluate judges on IF-RewardBench data: F1, tau_b, position bias.

    Verdicts: Positive and Negative F1 against the gold labels.
    Rankings: accuracy and Kendall tau_b over preference edges.
    Pairwise (--paradigm): both orders per pair, and the position-bias rate.
    """
    if not judge:
        report = api.meta_report(
            file,
            ranking=None if ranking == "auto" else ranking,
            no_edges=no_edges_policy,
            missing=missing_verdicts,
        )
        if as_json:
            print(report.model_dump_json(indent=2))
        else:
            print_meta_report(report, f"{TITLE}: predictions in {file.name}")
        return
    settings = api.MetaSettings(
        paradigm=paradigm,
        judge=api.JudgeSettings(mode=judge_mode),
        method=METHODS[method],
        pairs=pair_scope,
        no_edges=no_edges_policy,
    )
    with RichProgress() as progress:
        run = api.meta_run(
            file, judge, settings=settings, run_dir=out, options=options, progress=progress
        )
    if as_json:
        if len(run.results) == 1:
            print(run.results[0].report.model_dump_json(indent=2))
        else:
            print(json.dumps([r.model_dump(mode="json") for r in run.results], indent=2))
    else:
        print_stages(run.run_dir, run.stages)
        if len(run.results) == 1:
            [result] = run.results
            print_meta_report(result.report, f"{TITLE}: judge {result.judge}")
        else:
            print_judge_leaderboard(run.results)
        console.print(
            f"Run stored in [bold]{escape(str(run.run_dir))}[/] (rerun the command to resume); "
            + report_hint(run.run_dir),
            highlight=False,
        )
    exit_if_all_failed(run.stages)


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
