"""Terminal tables for judge meta-evaluation: one judge's report, a judge leaderboard, and
judge-vs-human agreement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

from checkbench.cli.render import console, estimate_cell
from checkbench.stats.notation import RATE_DIGITS, UNDEFINED, value_text

if TYPE_CHECKING:
    from checkbench.ifrewardbench.edges import RankingMetrics
    from checkbench.ifrewardbench.metrics import GroupMetrics, MetaReport
    from checkbench.ifrewardbench.pairwise import PairwiseReport
    from checkbench.ifrewardbench.run import JudgeResult
    from checkbench.judges.human import JudgeAgreement
    from checkbench.stats.agreement import Agreement
    from checkbench.stats.estimate import Stat

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


def stat(value: Stat | None, interval: bool = True) -> str:
    """A rate (0-1) or correlation, with its interval dimmed on a second line (stats.notation);
    "-" where undefined."""
    if value is None:
        return UNDEFINED
    if not interval:
        return value_text(value.value, RATE_DIGITS)
    return estimate_cell(value.value, value.low, value.high, RATE_DIGITS)


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


def print_human_agreement(results: Sequence[JudgeAgreement]) -> None:
    """Per-check agreement of each judge with the human verdicts: one column per judge, so
    long judge names and intervals fit an 80-column terminal."""
    table = Table(
        title="Judge vs human verdicts, per check (95% bootstrap intervals over items)",
        caption="agreement is FB-Bench's consistency rate; unscored judge verdicts count as "
        "disagreements",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("judge", no_wrap=True)
    for r in results:
        table.add_column(r.judge, justify="right", overflow="fold")
    table.add_row("checks (n)", *(str(r.n) for r in results))
    metrics = ("agreement", "kappa", "positive_f1", "negative_f1", "sensitivity", "specificity")
    for metric in metrics:
        table.add_row(
            _TITLES[metric], *(stat(getattr(r, metric)).replace("\n", " ") for r in results)
        )
    counts = (
        ("unscored", "unscored"),
        ("human undecided", "gold_missing"),
        ("only human", "only_human"),
        ("only judge", "only_judge"),
    )
    for label, field in counts:
        table.add_row(label, *(str(getattr(r, field)) for r in results))
    console.print(table)
