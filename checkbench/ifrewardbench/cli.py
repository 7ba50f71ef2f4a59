"""`checkbench ifrewardbench run`: judges meta-evaluated on IF-RewardBench data, and the
terminal tables of a meta-evaluation (one judge's report, a judge leaderboard)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from checkbench.choices import MissingVerdicts, NoEdges, PairScope, Paradigm
from checkbench.choices import PairwiseMethod as Method
from checkbench.console import Group
from checkbench.console.options import (
    DEFAULT_OPTIONS,
    SPECS,
    AsJson,
    JudgeMode,
    with_model_options,
)
from checkbench.console.render import (
    console,
    exit_if_all_failed,
    print_tally,
    report_hint,
    stat,
)
from checkbench.llm import ModelOptions
from checkbench.stats.notation import RATE_DIGITS, value_text
from checkbench.steps.progress import RichProgress

if TYPE_CHECKING:
    from checkbench.ifrewardbench.edges import RankingMetrics
    from checkbench.ifrewardbench.metrics import GroupMetrics, MetaReport
    from checkbench.ifrewardbench.pairwise import PairwiseReport
    from checkbench.ifrewardbench.run import JudgeResult
    from checkbench.stats.agreement import Agreement

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
    as_json: AsJson = False,
    options: ModelOptions = DEFAULT_OPTIONS,
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
        if as_json:
            print(report.model_dump_json(indent=2))
        else:
            print_meta_report(report, f"{TITLE}: predictions in {file.name}")
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
    if as_json:
        if len(run.results) == 1:
            print(run.results[0].report.model_dump_json(indent=2))
        else:
            print(json.dumps([r.model_dump(mode="json") for r in run.results], indent=2))
    else:
        print_tally(run.stages, run.tally)
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


def _table(title: str, first: str, columns: Sequence[str], caption: str | None = None) -> Table:
    table = Table(
        title=title,
        caption=caption,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column(first, no_wrap=True)
    for column in columns:
        table.add_column(column, justify="right", overflow="fold")
    return table


def _groups(title: str, groups: Mapping[str, GroupMetrics], overall: GroupMetrics | None) -> None:
    """Instruction-averaged metrics, one row per group."""
    table = _table(title, "group", ["n", *(_TITLES[m] for m in _HEADLINE)])
    rows = {"Overall": overall, **groups} if overall is not None else groups
    for name, group in rows.items():
        cells = [stat(getattr(group, m)) for m in _HEADLINE]
        table.add_row(name, str(group.instructions), *cells)
    console.print(table)


def _pooled(title: str, classes: Mapping[str, Agreement]) -> None:
    """Label-pooled metrics per constraint class; the unscored column only when any is."""
    if not classes:
        return
    metrics = ("positive_f1", "negative_f1", "mcc", "agreement")
    unscored = any(agree.unscored for agree in classes.values())
    counts = ["labels", "unscored"] if unscored else ["labels"]
    table = _table(title, "class", [*counts, *(_TITLES[m] for m in metrics)])
    for name, agree in classes.items():
        cells = [stat(getattr(agree, m)) for m in metrics]
        shown = [str(agree.n), str(agree.unscored)] if unscored else [str(agree.n)]
        table.add_row(name, *shown, *cells)
    console.print(table)


def _ranking_row(table: Table, name: str, metrics: RankingMetrics) -> None:
    table.add_row(
        name, str(metrics.instructions), stat(metrics.accuracy), stat(metrics.kendall_tau_b)
    )


def _pairwise(report: PairwiseReport) -> None:
    """Both-order pairwise accuracy, the listwise ranking it gives, and position consistency."""
    table = _table(
        "Pairwise judge, each pair in both orders",
        "from",
        ["instructions", "accuracy", "tau_b"],
        caption="edges: the two-order decision per gold edge (ties and inconsistent pairs are "
        f"wrong); listwise: responses ranked by {report.method.replace('_', '-')}",
    )
    _ranking_row(table, "edges", report.edges.overall)
    _ranking_row(table, "listwise", report.listwise.overall)
    console.print(table)
    pos = report.position
    console.print(
        f"pairwise: {report.judgments} judgments, [red]{report.unscored} unscored[/], "
        f"{report.ties} ties; {pos.pairs} pairs judged in both orders: {pos.consistent_wins} "
        f"consistent wins, {pos.consistent_ties} consistent ties, {pos.inconsistent} inconsistent "
        f"({pos.first_position} favour the first position, {pos.second_position} the second); "
        f"position-bias rate {_rate(pos.position_bias_rate)}"
    )


def print_meta_report(report: MetaReport, title: str) -> None:
    """Headline metrics by instruction type, breakdowns, agreement and unscored counts."""
    _groups(title, report.by_instruction_type, report.overall)
    _groups("By turns", report.by_turns, None)
    _groups("By constraint count", report.by_constraints, None)
    _pooled("By constraint category (pooled labels)", report.by_category)
    _pooled("By composition type (pooled labels)", report.by_composition)
    if report.agreement is not None:
        agree = report.agreement
        parts = ("agreement", "kappa", "alpha", "sensitivity", "specificity")
        console.print(
            f"labels vs gold ({agree.n}): "
            + ", ".join(f"{_TITLES[p]} {stat(getattr(agree, p), False)}" for p in parts)
        )
    if report.pairwise is not None:
        _pairwise(report.pairwise)
    u = report.unscored
    console.print(
        f"unscored: [red]{u.labels}[/] of {u.total_labels} labels, {u.responses} of "
        f"{u.total_responses} responses without a ranking score, {u.edges} of {u.total_edges} "
        f"edges counted as ties; {u.instructions_without_edges} instructions without edges "
        f"({'left out of' if report.settings.no_edges == 'exclude' else 'scored 0 in'} accuracy "
        "and tau_b)"
    )
    if report.critiques is not None:
        c = report.critiques
        console.print(
            f"critiques: {c.responses} responses, {c.unparsed} gave no verdicts; {c.verdicts} "
            f"verdicts: {c.read} read, {c.padded} padded as passes (the released metric "
            f"script's rule), {c.unscored} left unscored, {c.dropped} blocks beyond the "
            "checklist dropped"
        )


def print_judge_leaderboard(results: Sequence[JudgeResult]) -> None:
    """One row per judge, ranked by overall tau_b (intervals are in the JSON)."""
    table = _table(
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
        caption="accuracy and tau_b rank responses by the judge's listwise scores; pair acc: "
        "the two-order pairwise decision per gold edge; pos. bias: position-bias rate",
    )
    for r in results:
        report, pairwise = r.report, r.report.pairwise
        agree = report.agreement
        table.add_row(
            r.judge if r.mode == "text" else f"{r.judge} ({r.mode})",
            *(stat(getattr(report.overall, m), False) for m in _HEADLINE),
            stat(agree.agreement if agree else None, False),
            stat(agree.kappa if agree else None, False),
            stat(pairwise.edges.overall.accuracy if pairwise else None, False),
            _rate(pairwise.position.position_bias_rate if pairwise else None),
            str(r.usage.prompt_tokens + r.usage.completion_tokens),
            f"[red]{r.unscored}[/]" if r.unscored else "0",
        )
    console.print(table)
