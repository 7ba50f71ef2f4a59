"""Terminal output for judges against human verdicts or a reference judge, for a calibration's
report.

Every statistic prints in the one notation of stats.notation: scores (0-100) and shifts with
2 decimals, rates and correlations with 3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

from checkbench.console.render import console, estimate_cell, estimate_inline, stat
from checkbench.stats.notation import RATE_DIGITS, SCORE_DIGITS

if TYPE_CHECKING:
    from checkbench.judges.calibration import CalibrationReport
    from checkbench.judges.human import JudgeAgreement
    from checkbench.judges.reference import ModelShift, ReferenceAgreement
    from checkbench.stats.estimate import Stat


def inline(value: Stat | None, digits: int = RATE_DIGITS) -> str:
    """A statistic and its interval on one line: 0.833 [0.71, 0.95]; "-" where undefined."""
    if value is None:
        return estimate_inline(None, None, None)
    return estimate_inline(value.value, value.low, value.high, digits)


def _score(value: Stat) -> str:
    return estimate_cell(value.value, value.low, value.high)


def _shift(value: Stat) -> str:
    return estimate_cell(value.value, value.low, value.high, signed=True)


def _rank(rank: float) -> str:
    return f"{rank:g}"


def agreement_line(result: ReferenceAgreement) -> str:
    """Per-check agreement with the reference, with intervals and what was not counted."""
    a = result.agreement
    parts = ", ".join(
        f"{name} {inline(getattr(a, name))}"
        for name in ("agreement", "kappa", "alpha", "sensitivity", "specificity")
    )
    return (
        f"agreement ({a.n} checks, {a.clusters} items): {parts}; unscored {a.unscored} by the "
        f"judge, {a.gold_missing} by the reference; only the reference {a.only_human}, only "
        f"the judge {a.only_judge}"
    )


def ranking_line(result: ReferenceAgreement) -> str:
    """What replacing the reference by the judge does to the model ranking."""
    r = result.ranking
    policy = "count as 0" if r.policy == "zero" else "left out"
    largest = inline(r.max_abs_shift, SCORE_DIGITS)
    model = f" ({r.max_shift_model})" if r.max_shift_model else ""
    models = f"{len(r.models)} model" + ("" if len(r.models) == 1 else "s")
    return (
        f"ranking ({r.items} items, {r.responses} responses, {models}): "
        f"Spearman {inline(r.spearman)}, Kendall tau_b {inline(r.kendall_tau_b)}, largest "
        f"shift {largest} points{model}; unscored responses {r.judge_unscored} by the judge, "
        f"{r.reference_unscored} by the reference ({policy})"
    )


def models_table(title: str, models: list[ModelShift]) -> Table:
    """Per model: its score under the reference and under the judge, the shift, the ranks."""
    table = Table(
        title=title,
        caption="scores 0-100 with 95% bootstrap intervals over items; shift = judge - "
        "reference; rank 1 = best",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("model", overflow="fold")
    for column in ("items", "reference", "judge", "shift", "rank ref -> judge"):
        table.add_column(column, justify="right")
    for m in sorted(models, key=lambda m: (m.reference_rank, m.model)):
        table.add_row(
            m.model,
            str(m.items),
            _score(m.reference),
            _score(m.judge),
            _shift(m.shift),
            f"{_rank(m.reference_rank)} -> {_rank(m.judge_rank)}",
        )
    return table


def print_reference_agreement(result: ReferenceAgreement) -> None:
    """One judge against the reference: the agreement line, the ranking line, the table."""
    excluded = (
        f" (held-out items only: {result.excluded_items} training items left out)"
        if result.excluded_items
        else ""
    )
    console.print(
        f"[bold]{result.judge}[/] against reference [bold]{result.reference}[/]{excluded}",
        highlight=False,
    )
    console.print(agreement_line(result), highlight=False)
    console.print(ranking_line(result), highlight=False)
    console.print(
        models_table(f"Model scores: {result.reference} -> {result.judge}", result.ranking.models)
    )


def _before_after(report: CalibrationReport) -> Table:
    table = Table(
        title=f"Held-out items only: {report.judge} before and after calibration "
        f"({report.name}), against {report.reference}",
        caption=f"{report.test.items} held-out items; 95% bootstrap intervals over items; "
        "before: the judge's own verdicts, after: calibrated",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("figure", no_wrap=True)
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    rows = {
        "checks (n)": lambda r: str(r.agreement.n),
        "agreement": lambda r: stat(r.agreement.agreement),
        "kappa": lambda r: stat(r.agreement.kappa),
        "alpha": lambda r: stat(r.agreement.alpha),
        "sensitivity": lambda r: stat(r.agreement.sensitivity),
        "specificity": lambda r: stat(r.agreement.specificity),
        "unscored": lambda r: str(r.agreement.unscored),
        "Spearman": lambda r: stat(r.ranking.spearman),
        "Kendall tau_b": lambda r: stat(r.ranking.kendall_tau_b),
        "largest shift (points)": lambda r: _score(r.ranking.max_abs_shift),
        "largest shift model": lambda r: r.ranking.max_shift_model or "-",
    }
    for label, cell in rows.items():
        table.add_row(label, cell(report.before), cell(report.after))
    return table


def print_calibration(report: CalibrationReport) -> None:
    """The fit's facts (split, unusable verdicts, groups), then before/after on held-out items."""
    by = f", by {report.by}" if report.by else ""
    console.print(
        f"calibration [bold]{report.name}[/]: {report.method}{by}, decision {report.decision} "
        f"(threshold {report.threshold:.3f}), seed {report.seed}, artefact v{report.version}",
        highlight=False,
    )
    console.print(
        f"train: {report.train.items} items, {report.train.verdicts} checks "
        f"({report.train.reference_positive} passed by the reference); test (held out): "
        f"{report.test.items} items, {report.test.verdicts} checks "
        f"({report.test.reference_positive} passed); unusable: {report.unusable} verdicts "
        "without P(yes) or a reference label",
        highlight=False,
    )
    if report.groups:
        groups = ", ".join(f"{k} ({n})" for k, n in report.groups.items())
        console.print(f"groups with their own curve (training checks): {groups}", highlight=False)
    console.print(_before_after(report))
    for side in (report.before, report.after):
        console.print(
            models_table(
                f"Model scores, held-out items only: {side.reference} -> {side.judge}",
                side.ranking.models,
            )
        )


_HUMAN_METRICS = {
    "agreement": "agreement",
    "kappa": "kappa",
    "positive_f1": "Pos F1",
    "negative_f1": "Neg F1",
    "sensitivity": "sensitivity",
    "specificity": "specificity",
}


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
    for metric, label in _HUMAN_METRICS.items():
        table.add_row(label, *(stat(getattr(r, metric)).replace("\n", " ") for r in results))
    counts = (
        ("unscored", "unscored"),
        ("human undecided", "gold_missing"),
        ("only human", "only_human"),
        ("only judge", "only_judge"),
    )
    for label, field in counts:
        table.add_row(label, *(str(getattr(r, field)) for r in results))
    console.print(table)
