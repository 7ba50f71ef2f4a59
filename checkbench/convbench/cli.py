"""`checkbench convbench ...`: Conv-to-Bench's commands (a benchmark built from conversation
logs, the scores of a run with agreement with a reference ranking) and what they print.

Each command imports Conv-to-Bench's modules and API (`convbench.api`) when it runs, so
`checkbench --help` loads none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from pydantic import ValidationError
from rich.markup import escape

from checkbench.choices import CheckMode, Curation, LogFormat
from checkbench.console import Group
from checkbench.console.options import (
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    TABLE,
    CalibrationName,
    ExecutorChoice,
    JudgeId,
    Model,
    RayAddress,
    Unscored,
    with_model_options,
    with_output,
    with_table_output,
)
from checkbench.console.output import Printout
from checkbench.console.render import (
    exit_if_all_failed,
)
from checkbench.console.tables import Column, Grid, cell, estimate, stat_cell
from checkbench.distributed import executor_named
from checkbench.errors import InputError
from checkbench.llm import ModelOptions
from checkbench.steps.progress import RichProgress

if TYPE_CHECKING:
    from checkbench.convbench.decisions import StageCount
    from checkbench.convbench.scoring import BenchScores
    from checkbench.convbench.spec import BuildSpec
    from checkbench.convbench.summary import BuildSummary, TopicPreview

app = typer.Typer(
    cls=Group,
    help="Conv-to-Bench: build a benchmark from conversation logs, score a run.",
    no_args_is_help=True,
)


def _spec(**fields: Any) -> BuildSpec:
    """The build spec, with a bad combination of options reported as one located line."""
    from checkbench.convbench.spec import BuildSpec
    from checkbench.jsonl import field_path

    try:
        return BuildSpec(**fields)
    except ValidationError as exc:
        field, message = field_path(exc)
        raise InputError(message, field=field) from None


@app.command("build")
@with_model_options
@with_table_output
def build(
    logs: Annotated[list[Path], typer.Argument(help="Conversation logs: JSONL, .gz or Parquet.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run directory for the build.")
    ] = None,
    bench: Annotated[
        Path | None, typer.Option(help="Benchmark file to write (JSONL of items).")
    ] = None,
    stop_after: Annotated[
        Literal["topics"] | None,
        typer.Option(
            help="Stop after the cheap stages (reading, selection, topics): print the topic "
            "clusters with their keywords and openers; no model call, nothing written."
        ),
    ] = None,
    domain: Annotated[
        str | None, typer.Option(help="Domain to keep: coding, math, writing or your own.")
    ] = None,
    domain_description: Annotated[
        str | None, typer.Option(help="How the domain check describes your own domain.")
    ] = None,
    vocab: Annotated[
        Path | None, typer.Option(help="Domain vocabulary file, one word a line (any script).")
    ] = None,
    markers: Annotated[
        Path | None,
        typer.Option(
            help="feedback: more concession markers, lines 'concede: PHRASE' or 'hold: PHRASE'."
        ),
    ] = None,
    model: Model = DEFAULT_MODEL,
    log_format: Annotated[LogFormat, typer.Option("--format", help="Log format.")] = "auto",
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first malformed record.")
    ] = False,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Read at most N conversations from each log.")
    ] = None,
    curation: Annotated[
        Curation,
        typer.Option(
            "--curate",
            help="conv-to-bench (instruction + sourced checklist) or feedback (FB-Bench-style "
            "samples from conversations where the assistant conceded a disputed reply).",
        ),
    ] = "conv-to-bench",
    k: Annotated[
        int | None, typer.Option(min=1, help="Number of topic clusters (default: chosen).")
    ] = None,
    embedder: Annotated[
        str,
        typer.Option(
            help="auto (wordllama, with character n-grams for Chinese), wordllama[:DIM], "
            "sentence-transformers:M or openai:M."
        ),
    ] = "auto",
    min_checks: Annotated[int, typer.Option(min=1, help="Fewest checks per item.")] = 3,
    max_checks: Annotated[int, typer.Option(min=1, help="Most checks per item.")] = 10,
    instruction_chars: Annotated[
        int, typer.Option(min=20, help="Longest synthesized instruction, in characters.")
    ] = 1200,
    check_chars: Annotated[int, typer.Option(min=20, help="Longest check, in characters.")] = 200,
    token_limit: Annotated[
        int, typer.Option(min=100, help="feedback: longest conversation, approximate tokens.")
    ] = 5000,
    executor: ExecutorChoice = "local",
    ray_address: RayAddress = None,
    options: ModelOptions = DEFAULT_OPTIONS,
    printout: Printout = TABLE,
) -> None:
    """Turn conversation logs into a benchmark and print what every stage kept and dropped
    (with --executor ray, records are parsed, embedded and decided on a Ray cluster). Exits 1
    when a model stage failed every call it made, 2 when the logs yield no item."""
    from checkbench.convbench import api
    from checkbench.convbench.summary import REPORT_FILE

    spec = _spec(
        logs=logs,
        mode=curation,
        domain=domain,
        domain_description=domain_description,
        vocab=vocab,
        markers=markers,
        fmt=log_format,
        strict=strict,
        limit=limit,
        model=model,
        embedder=embedder,
        topics={"k": k},
        settings={
            "min_checks": min_checks,
            "max_checks": max_checks,
            "instruction_chars": instruction_chars,
            "check_chars": check_chars,
            "max_tokens_approx": token_limit,
        },
    )
    if stop_after == "topics":
        preview = api.preview(spec)
        print_preview(preview, printout)
        printout.finish(lambda: preview.model_dump(mode="json"))
        return
    if out is None or bench is None:
        missing = "out" if out is None else "bench"
        raise InputError(f"--{missing} is required (unless --stop-after topics)", field=missing)
    with RichProgress() as progress:
        result = api.build(
            spec,
            out,
            bench,
            options=options,
            progress=progress,
            executor=executor_named(executor, ray_address),
        )
    report, tally = result.report, result.tally
    print_build_report(report, printout)
    printout.calls(tally.usage, tally.limits, tally.prices)
    printout.finish(lambda: report.model_dump(mode="json"))
    written = f"{report.items} items written to [bold]{escape(report.bench)}[/]"
    if not report.items:  # some stage's calls all failed: exit_if_all_failed exits 1
        written = "no benchmark written (a rerun asks the failed calls again)"
    printout.info(f"{written}; report in {escape(str(Path(out) / REPORT_FILE))}")
    exit_if_all_failed(report.stages)


def stages_grid(title: str, stages: list[StageCount]) -> Grid:
    """One row per stage: seen, kept, dropped and why, model calls and cache hits."""
    rows = []
    for stage in stages:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in stage.reasons.items())
        if stage.junk:
            junk = ", ".join(f"{reason}: {n}" for reason, n in stage.junk.items())
            reasons = "; ".join(filter(None, [reasons, f"junk checks dropped ({junk})"]))
        rows.append(
            [
                cell(stage.stage),
                cell(stage.seen),
                cell(stage.kept),
                cell(stage.dropped, style="red" if stage.dropped else ""),
                cell(reasons),
                cell(stage.calls),
                cell(stage.cached),
            ]
        )
    return Grid(
        title,
        [Column("stage", numeric=False), Column("seen"), Column("kept"), Column("dropped")]
        + [Column("why dropped", numeric=False, wrap=True), Column("calls"), Column("cached")],
        rows,
    )


def _print_reading(report: BuildSummary | TopicPreview, printout: Printout) -> None:
    if report.limit_reached:
        printout.text("[dim]--limit reached: later records of those logs were not read[/]")
    for error in report.skipped_records:
        printout.text(f"[dim]skipped: {escape(str(error))}[/]")


def print_preview(preview: TopicPreview, printout: Printout) -> None:
    """The cheap stages, then each topic cluster, largest first: size, verdict, keywords (and
    which of them are in the domain's vocabulary) and the messages nearest its centre."""
    domain = preview.domain or "none: no cluster kept"
    printout.grids(stages_grid(f"Build preview ({preview.mode}, domain: {domain})", preview.stages))
    _print_reading(preview, printout)
    topics = preview.topics
    if topics is None:
        printout.text("no conversation reached the topic filter")
        return
    printout.text(f"{topics.k} topic clusters of {topics.n} conversations ({topics.embedder}):")
    if topics.rescued:
        printout.text(
            f"{topics.rescued} conversations outside the kept clusters kept by their own first "
            "message (it names the domain); the zero-shot check decides"
        )
    for cluster in sorted(topics.clusters, key=lambda c: -c.size):
        matched = [w for w in cluster.keywords if w in set(cluster.matched)]
        words = ", ".join(cluster.keywords)
        if matched:
            words += f" (in the domain's vocabulary: {', '.join(matched)})"
        verdict = "[green]kept[/]" if cluster.kept else "[dim]dropped[/]"
        printout.text(f"\n[bold]cluster {cluster.id}[/]: {cluster.size} conversations, {verdict}")
        printout.text(f"  keywords: {escape(words)}")
        for opener in cluster.openers:
            printout.text(f"  > {escape(opener)}")
    printout.text(
        f"\n{topics.kept} of {topics.n} conversations in kept clusters; no model called, "
        "nothing written"
    )


def print_build_report(report: BuildSummary, printout: Printout) -> None:
    """What every stage kept and dropped, and the feedback labels."""
    printout.grids(
        stages_grid(f"Build ({report.mode}, domain: {report.domain or 'any'})", report.stages)
    )
    _print_reading(report, printout)
    if report.feedback_labels:
        labels = ", ".join(f"{label}: {n}" for label, n in report.feedback_labels.items())
        printout.text(f"feedback labels of later user messages: {labels}")


def score_grids(scores: BenchScores, reference: Path | None) -> list[Grid]:
    """Models best first with intervals; then the rank agreement with the reference."""
    checks = "instruction-derived checks" if scores.checks == "instruction" else "all checks"
    notes = [
        "mean over instructions of each one's check mean, 0-100; 95% cluster bootstrap over "
        "instructions; unscored items "
        + ("left out" if scores.policy == "exclude" else "count as 0")
    ]
    if scores.items_without_checks:
        notes.append(f"{scores.items_without_checks} items have no such checks")
    grids = [
        Grid(
            title=f"Scores over {scores.items} instructions, {checks} (judge: {scores.judge})",
            columns=[
                Column("#"),
                Column("model", numeric=False),
                Column("score"),
                Column("n"),
                Column("unscored"),
            ],
            rows=[
                [
                    cell(rank),
                    cell(row.model),
                    estimate(row.score, *(row.ci or (None, None))),
                    cell(row.n),
                    cell(row.unscored, style="red" if row.unscored else ""),
                ]
                for rank, row in enumerate(scores.models, start=1)
            ],
            notes=notes,
            label=1,
        )
    ]
    agreement = scores.reference
    if agreement is not None:
        unmatched = [
            f"{label}: {', '.join(names)}"
            for label, names in (
                ("run models not in the reference", agreement.unmatched_run),
                ("reference models not in the run", agreement.unmatched_reference),
            )
            if names
        ]
        grids.append(
            Grid(
                title=f"Rank agreement with {reference} over {len(agreement.models)} models",
                columns=[Column("correlation", numeric=False), Column("value")],
                rows=[
                    [cell("Spearman rho"), stat_cell(agreement.spearman)],
                    [cell("Kendall tau_b"), stat_cell(agreement.kendall_tau_b)],
                ],
                notes=unmatched,
                detail_below=False,
            )
        )
    return grids


@app.command()
@with_output
def score(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run directory with verdicts.")],
    judge_id: JudgeId = None,
    calibration: CalibrationName = None,
    check_mode: Annotated[
        CheckMode,
        typer.Option("--checks", help="Score instruction-derived checks only, or all checks."),
    ] = "all",
    reference: Annotated[
        Path | None,
        typer.Option(help="Reference leaderboard (JSON or CSV of model,score) to correlate with."),
    ] = None,
    unscored_policy: Unscored = "exclude",
    printout: Printout = TABLE,
) -> None:
    """Conv-to-Bench scores per model; rank agreement with a reference leaderboard.

    Scores come with 95% cluster-bootstrap intervals over instructions.
    With --reference: Spearman and Kendall correlations with its ranking.
    """
    from checkbench.console.options import refuse_judge_and_calibration
    from checkbench.console.render import note_scores
    from checkbench.convbench import api

    refuse_judge_and_calibration(ctx, judge_id, calibration)
    result = api.score(
        run_dir,
        judge=judge_id,
        calibration=calibration,
        checks=check_mode,
        reference=reference,
        policy=unscored_policy,
    )
    note_scores(result.judge, None, result.items, result.warning)
    scores = result.scores
    printout.grids(*score_grids(scores, reference))
    printout.finish(lambda: scores.model_dump(mode="json"))
