"""`checkbench ifrewardbench run`: judges meta-evaluated on IF-RewardBench data, and the
terminal tables of a meta-evaluation (one judge's report, a judge leaderboard)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.markup import escape

from checkbench.choices import MissingVerdicts, NoEdges, PairScope, Paradigm
from checkbench.choices import PairwiseMethod as Method
from checkbench.console import Group
from checkbench.console.options import (
    DEFAULT_OPTIONS,
    SPECS,
    TABLE,
    JudgeMode,
    with_model_options,
    with_output,
)
from checkbench.console.output import Printout
from checkbench.console.render import (
    exit_if_all_failed,
    print_tally,
    report_hint,
    stat,
)
from checkbench.console.tables import Cell, Column, Grid, cell, stat_cell
from checkbench.llm import ModelOptions
from checkbench.stats.notation import RATE_DIGITS, value_text
from checkbench.steps.progress import RichProgress

if TYPE_CHECKING:
    from checkbench.ifrewardbench.edges import RankingMetrics
    from checkbench.ifrewardbench.metrics import GroupMetrics, MetaReport
    from checkbench.ifrewardbench.pairwise import PairwiseReport
    from checkbench.ifrewardbench.run import JudgeResult
    from checkbench.stats.agreement import Agreement
    from checkbench.stats.estimate import Stat

app = typer.Typer(
    cls=Group,
    help="IF-RewardBench: meta-evaluate judges against gold constraint labels and preference "
    "graphs.",
    no_args_is_help=True,
)

TITLE = "Judge meta-evaluation (IF-RewardBench metrics, 95% bootstrap intervals)"
METHODS: dict[str, Method] = {"bradley-terry": "bradley_terry", "elo": "elo"}


@app.command("run")
@with_model_options
@with_output
def run_judges(
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
    options: ModelOptions = DEFAULT_OPTIONS,
    printout: Printout = TABLE,
) -> None:
    """Meta-evaluate judges on IF-RewardBench data: F1, tau_b, position bias.

    Verdicts: Positive and Negative F1 against the gold labels.
    Rankings: accuracy and Kendall tau_b over preference edges.
    Pairwise (--paradigm): both orders per pair, and the position-bias rate.
    """
    from checkbench.ifrewardbench.api import meta_run
    from checkbench.ifrewardbench.run import MetaSettings, meta_report
    from checkbench.judges.checklist import JudgeSettings

    if not judge:
        report = meta_report(
            file,
            ranking=None if ranking == "auto" else ranking,
            no_edges=no_edges_policy,
            missing=missing_verdicts,
        )
        print_meta_report(report, f"{TITLE}: predictions in {file.name}", printout)
        printout.finish(lambda: report.model_dump(mode="json"))
        return
    settings = MetaSettings(
        paradigm=paradigm,
        judge=JudgeSettings(mode=judge_mode),
        method=METHODS[method],
        pairs=pair_scope,
        no_edges=no_edges_policy,
    )
    with RichProgress() as progress:
        run = meta_run(
            file, judge, settings=settings, run_dir=out, options=options, progress=progress
        )
    print_tally(run.stages, run.tally, printout=printout)
    if len(run.results) == 1:
        [result] = run.results
        print_meta_report(result.report, f"{TITLE}: judge {result.judge}", printout)
        printout.finish(lambda: result.report.model_dump(mode="json"))
    else:
        printout.grids(judge_leaderboard_grid(run.results))
        printout.finish(lambda: [r.model_dump(mode="json") for r in run.results])
    printout.info(
        f"Run stored in [bold]{escape(str(run.run_dir))}[/] (rerun the command to resume);"
    )
    printout.info(report_hint(run.run_dir))
    exit_if_all_failed(run.stages)


_HEADLINE = ("positive_f1", "negative_f1", "accuracy", "kendall_tau_b")
_TITLES = {
    "positive_f1": "Pos F1",
    "negative_f1": "Neg F1",
    "accuracy": "accuracy",
    "kendall_tau_b": "tau_b",
    "agreement": "agreement",
    "kappa": "kappa",
    "alpha": "alpha",
    "mcc": "MCC",
    "sensitivity": "sensitivity",
    "specificity": "specificity",
}


def _rate(value: float | None) -> str:
    return value_text(value, RATE_DIGITS)


def _value(value: Stat | None) -> Cell:
    """A statistic without its interval (the JSON has it)."""
    return Cell(value_text(None if value is None else value.value, RATE_DIGITS))


def _grid(
    title: str, first: str, columns: Sequence[str], rows: list[list[Cell]], note: str = ""
) -> Grid:
    return Grid(
        title,
        [Column(first, numeric=False), *(Column(column) for column in columns)],
        rows,
        notes=[note] if note else [],
    )


def _groups(title: str, groups: Mapping[str, GroupMetrics], overall: GroupMetrics | None) -> Grid:
    """Instruction-averaged metrics, one row per group."""
    rows = {"Overall": overall, **groups} if overall is not None else groups
    return _grid(
        title,
        "group",
        ["n", *(_TITLES[m] for m in _HEADLINE)],
        [
            [
                Cell(name),
                cell(group.instructions),
                *(stat_cell(getattr(group, m)) for m in _HEADLINE),
            ]
            for name, group in rows.items()
        ],
    )


def _pooled(title: str, classes: Mapping[str, Agreement]) -> Grid | None:
    """Label-pooled metrics per constraint class; the unscored column only when any is."""
    if not classes:
        return None
    metrics = ("positive_f1", "negative_f1", "mcc", "agreement")
    unscored = any(agree.unscored for agree in classes.values())
    counts = ["labels", "unscored"] if unscored else ["labels"]
    rows = []
    for name, agree in classes.items():
        shown = [cell(agree.n), cell(agree.unscored)] if unscored else [cell(agree.n)]
        rows.append([Cell(name), *shown, *(stat_cell(getattr(agree, m)) for m in metrics)])
    return _grid(title, "class", [*counts, *(_TITLES[m] for m in metrics)], rows)


def _ranking_row(name: str, metrics: RankingMetrics) -> list[Cell]:
    return [
        Cell(name),
        cell(metrics.instructions),
        stat_cell(metrics.accuracy),
        stat_cell(metrics.kendall_tau_b),
    ]


def _pairwise(report: PairwiseReport, printout: Printout) -> None:
    """Both-order pairwise accuracy, the listwise ranking it gives, and position consistency."""
    printout.grids(
        _grid(
            "Pairwise judge, each pair in both orders",
            "from",
            ["instructions", "accuracy", "tau_b"],
            [
                _ranking_row("edges", report.edges.overall),
                _ranking_row("listwise", report.listwise.overall),
            ],
            note="edges: the two-order decision per gold edge (ties and inconsistent pairs are "
            f"wrong); listwise: responses ranked by {report.method.replace('_', '-')}",
        )
    )
    pos = report.position
    printout.text(
        f"pairwise: {report.judgments} judgments, [red]{report.unscored} unscored[/], "
        f"{report.ties} ties; {pos.pairs} pairs judged in both orders: {pos.consistent_wins} "
        f"consistent wins, {pos.consistent_ties} consistent ties, {pos.inconsistent} inconsistent "
        f"({pos.first_position} favour the first position, {pos.second_position} the second); "
        f"position-bias rate {_rate(pos.position_bias_rate)}"
    )


def print_meta_report(report: MetaReport, title: str, printout: Printout) -> None:
    """Headline metrics by instruction type, breakdowns, agreement and unscored counts."""
    printout.grids(
        _groups(title, report.by_instruction_type, report.overall),
        _groups("By turns", report.by_turns, None),
        _groups("By constraint count", report.by_constraints, None),
        _pooled("By constraint category (pooled labels)", report.by_category),
        _pooled("By composition type (pooled labels)", report.by_composition),
    )
    if report.agreement is not None:
        agree = report.agreement
        parts = ("agreement", "kappa", "alpha", "sensitivity", "specificity")
        printout.text(
            f"labels vs gold ({agree.n}): "
            + ", ".join(f"{_TITLES[p]} {stat(getattr(agree, p), False)}" for p in parts)
        )
    if report.pairwise is not None:
        _pairwise(report.pairwise, printout)
    u = report.unscored
    printout.text(
        f"unscored: [red]{u.labels}[/] of {u.total_labels} labels, {u.responses} of "
        f"{u.total_responses} responses without a ranking score, {u.edges} of {u.total_edges} "
        f"edges counted as ties; {u.instructions_without_edges} instructions without edges "
        f"({'left out of' if report.settings.no_edges == 'exclude' else 'scored 0 in'} accuracy "
        "and tau_b)"
    )
    if report.critiques is not None:
        c = report.critiques
        printout.text(
            f"critiques: {c.responses} responses, {c.unparsed} gave no verdicts; {c.verdicts} "
            f"verdicts: {c.read} read, {c.padded} padded as passes (the released metric "
            f"script's rule), {c.unscored} left unscored, {c.dropped} blocks beyond the "
            "checklist dropped"
        )


def judge_leaderboard_grid(results: Sequence[JudgeResult]) -> Grid:
    """One row per judge, ranked by overall tau_b (intervals are in the JSON)."""
    rows = []
    for r in results:
        report, pairwise = r.report, r.report.pairwise
        agree = report.agreement
        rows.append(
            [
                Cell(r.judge if r.mode == "text" else f"{r.judge} ({r.mode})"),
                *(_value(getattr(report.overall, m)) for m in _HEADLINE),
                _value(agree.agreement if agree else None),
                _value(agree.kappa if agree else None),
                _value(pairwise.edges.overall.accuracy if pairwise else None),
                Cell(_rate(pairwise.position.position_bias_rate if pairwise else None)),
                cell(r.usage.prompt_tokens + r.usage.completion_tokens),
                cell(r.unscored, style="red" if r.unscored else ""),
            ]
        )
    return _grid(
        f"Judge leaderboard ({results[0].paradigm}; IF-RewardBench metrics)",
        "judge",
        [
            *(_TITLES[m] for m in _HEADLINE),
            "agreement",
            "kappa",
            "pair acc",
            "pos. bias",
            "tokens",
            "unscored",
        ],
        rows,
        note="accuracy and tau_b rank responses by the judge's listwise scores; pair acc: "
        "the two-order pairwise decision per gold edge; pos. bias: position-bias rate",
    )
