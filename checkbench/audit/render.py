"""The audit in the terminal: what the run allows, the flag counts, the benchmark's figures
full and refined side by side, then the flagged checks (up to the limit), each with its
reasons in words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from checkbench.audit.figures import Figure
from checkbench.audit.run import AuditReport, flagged_first
from checkbench.console.tables import Cell, Column, Grid, estimate
from checkbench.stats.notation import RATE_DIGITS, value_text

if TYPE_CHECKING:
    from checkbench.console.output import Printout

_FIGURES = (
    ("separability", "separability", "95% intervals do not overlap"),
    ("paired_separability", "paired separability", "paired item bootstrap"),
    ("rank_stability", "rank stability", "mean Kendall tau_b"),
    ("effective_checks", "effective checks", "participation ratio"),
)


def _cell(figure: Figure) -> Cell:
    """The figure with its interval and its n below it (why it has no interval: in the notes)."""
    count = f"n = {figure.n}"
    if figure.value is None:
        return Cell("-", count)
    digits = 2 if figure.value > 1 else RATE_DIGITS
    if figure.low is None:
        return Cell(value_text(figure.value, digits), count)
    shown = estimate(figure.value, figure.low, figure.high, digits)
    return Cell(shown.value, f"{shown.detail}\n{count}")


def _figure_notes(report: AuditReport) -> list[str]:
    """What each figure is, what its n counts, and why it has no interval where it has none."""
    notes = []
    for key, label, what in _FIGURES:
        full, refined = getattr(report.full, key), getattr(report.refined, key)
        why = list(dict.fromkeys(note for note in (full.note, refined.note) if note))
        notes.append(f"{label}: {what}; n: {full.of}" + "".join(f"; {note}" for note in why))
    return notes


def print_audit(report: AuditReport, limit: int, printout: Printout) -> None:
    """The audit as text and tables."""
    printout.text(
        f"Audit of {escape(report.run)} ({report.protocol}, judge {escape(report.judge)}): "
        f"{len(report.models)} models, {report.items} items, {report.checks} checks, "
        f"{report.verdicts} verdicts, in {report.seconds:.1f} s"
    )
    for limit_line in report.limits:
        printout.text(f"[dim]cannot audit: {escape(limit_line)}[/]")
    counts = ", ".join(f"{kind} {n}" for kind, n in report.flags.items()) or "none"
    printout.text(f"flagged checks: {report.flagged_checks} of {report.checks} ({counts})")
    refinement = report.refinement
    kept = report.checks - refinement.checks_dropped
    printout.grids(
        Grid(
            "The benchmark, full and without the flagged checks",
            [
                Column("figure", numeric=False),
                Column(f"full ({report.checks} checks)"),
                Column(f"refined ({kept} checks)"),
            ],
            [
                [Cell(label), _cell(getattr(report.full, key)), _cell(getattr(report.refined, key))]
                for key, label, _ in _FIGURES
            ],
            notes=_figure_notes(report),
        )
    )
    tau = refinement.leaderboard_tau
    printout.text(
        f"refined: {refinement.checks_dropped} check(s) left out ({', '.join(refinement.drop)}), "
        f"{refinement.items_changed} item(s) changed, {refinement.items_kept_whole} kept whole "
        f"(every check flagged); Kendall tau_b of the full and refined leaderboards "
        f"{value_text(tau.value, RATE_DIGITS)} over {tau.n} models ({escape(tau.note or '')})"
    )
    if report.irt is not None:
        irt = report.irt
        printout.text(
            f"[dim]{escape(irt.method)}: {irt.checks} checks that vary, {irt.iterations} "
            f"iterations, {'converged' if irt.converged else 'NOT converged'}[/]"
        )
    flagged = flagged_first(report)
    if not flagged:
        return
    shown = flagged if printout.fmt in ("csv", "json") else flagged[:limit]
    printout.grids(
        Grid(
            f"Flagged checks ({len(shown)} of {len(flagged)})",
            [
                Column("item", numeric=False),
                Column("#"),
                Column("check", numeric=False, wrap=True),
                Column("pass"),
                Column("r"),
                Column("why", numeric=False, wrap=True),
            ],
            [
                [
                    Cell(check.item_id),
                    Cell(str(check.number)),
                    Cell(check.text),
                    Cell(value_text(check.pass_rate, RATE_DIGITS)),
                    Cell(value_text(check.discrimination, RATE_DIGITS, signed=True)),
                    Cell("; ".join(flag.reason for flag in check.flags)),
                ]
                for check in shown
            ],
            detail_below=False,
        )
    )


def show_audit(report: AuditReport, printout: Printout, limit: int) -> None:
    """The audit as tables (JSON: every check)."""
    print_audit(report, limit, printout)
    printout.finish(lambda: report.model_dump(mode="json"))
