"""The audit in the terminal: what the run allows, the flag counts, the benchmark's figures
full and refined side by side, then the flagged checks (up to the limit), each with its
reasons in words."""

from __future__ import annotations

import json

from rich.markup import escape
from rich.table import Table

from checkbench.audit.figures import Figure
from checkbench.audit.run import AuditReport, flagged_first
from checkbench.console.render import console, estimate_cell
from checkbench.stats.notation import RATE_DIGITS, value_text

_FIGURES = (
    ("separability", "separability (95% intervals do not overlap)"),
    ("paired_separability", "paired separability (paired item bootstrap)"),
    ("rank_stability", "rank stability (mean Kendall tau_b)"),
    ("effective_checks", "effective number of checks (participation ratio)"),
)


def _cell(figure: Figure) -> str:
    if figure.value is None:
        return f"-\n[dim]{escape(figure.note or '')}[/]"
    digits = 2 if figure.value > 1 else RATE_DIGITS
    if figure.low is None:
        shown = f"{value_text(figure.value, digits)}\n[dim]{escape(figure.note or '')}[/]"
    else:
        shown = estimate_cell(figure.value, figure.low, figure.high, digits)
    return f"{shown}\n[dim]n = {figure.n} {escape(figure.of)}[/]"


def print_audit(report: AuditReport, limit: int) -> None:
    """The audit as text tables."""
    console.print(
        f"Audit of {escape(report.run)} ({report.protocol}, judge {escape(report.judge)}): "
        f"{len(report.models)} models, {report.items} items, {report.checks} checks, "
        f"{report.verdicts} verdicts, in {report.seconds:.1f} s",
        highlight=False,
    )
    for limit_line in report.limits:
        console.print(f"[dim]cannot audit: {escape(limit_line)}[/]", highlight=False)
    counts = ", ".join(f"{kind} {n}" for kind, n in report.flags.items()) or "none"
    console.print(f"flagged checks: {report.flagged_checks} of {report.checks} ({counts})")
    refinement = report.refinement
    table = Table(title="The benchmark, full and without the flagged checks", title_justify="left")
    table.add_column("figure")
    table.add_column(f"full ({report.checks} checks)", justify="right")
    kept = report.checks - refinement.checks_dropped
    table.add_column(f"refined ({kept} checks)", justify="right")
    for key, label in _FIGURES:
        table.add_row(label, _cell(getattr(report.full, key)), _cell(getattr(report.refined, key)))
    console.print(table)
    tau = refinement.leaderboard_tau
    console.print(
        f"refined: {refinement.checks_dropped} check(s) left out ({', '.join(refinement.drop)}), "
        f"{refinement.items_changed} item(s) changed, {refinement.items_kept_whole} kept whole "
        f"(every check flagged); Kendall tau_b of the full and refined leaderboards "
        f"{value_text(tau.value, RATE_DIGITS)} over {tau.n} models ({escape(tau.note or '')})",
        highlight=False,
    )
    if report.irt is not None:
        irt = report.irt
        console.print(
            f"[dim]{escape(irt.method)}: {irt.checks} checks that vary, {irt.iterations} "
            f"iterations, {'converged' if irt.converged else 'NOT converged'}[/]",
            highlight=False,
        )
    flagged = flagged_first(report)
    if not flagged:
        return
    checks = Table(
        title=f"Flagged checks ({min(limit, len(flagged))} of {len(flagged)})",
        title_justify="left",
    )
    for column in ("item", "#", "check", "pass", "r", "why"):
        checks.add_column(column, justify="right" if column in ("#", "pass", "r") else "left")
    for check in flagged[:limit]:
        checks.add_row(
            escape(check.item_id),
            str(check.number),
            escape(check.text[:60]),
            value_text(check.pass_rate, RATE_DIGITS),
            value_text(check.discrimination, RATE_DIGITS, signed=True),
            escape("; ".join(flag.reason for flag in check.flags)),
        )
    console.print(checks)


def show_audit(report: AuditReport, as_json: bool, limit: int) -> None:
    """The audit as JSON (every check), or as tables."""
    if as_json:
        print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    print_audit(report, limit)
