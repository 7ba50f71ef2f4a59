"""`checkbench compare`: did the candidate get better than the baseline, on which items, and
beyond chance? With `--fail-if-worse`, a gate for CI (exit code 1, docs/compare.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from checkbench import api
from checkbench.cli import app
from checkbench.console import err_console
from checkbench.console.options import TABLE, with_output
from checkbench.console.output import Printout
from checkbench.console.render import console
from checkbench.console.tables import Cell, Column, Grid, cell, estimate
from checkbench.stats.notation import value_text

GATE_FAILED = 1
"""Exit code of `--fail-if-worse` when a candidate is worse (and of `leaderboard --min-score`)."""
ANSWER_CHARS = 300
"""How much of each answer the terminal shows (`--json` holds them whole)."""
PARTS = {"error_correction": "EC", "response_maintenance": "RM"}


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _delta(delta: api.Delta) -> Cell:
    low, high = delta.ci or (None, None)
    return estimate(delta.delta, low, high, signed=True)


def _summary(found: Sequence[api.Comparison]) -> Grid:
    first = found[0]
    parts = [name for name in PARTS if name in first.parts]
    level = round(first.level * 100)
    headers = ["n", "delta", *(PARTS[part] for part in parts)]
    headers += ["p", "checks -/+", "McNemar p", "only b/c", "worse"]
    rows = [
        [
            cell(c.baseline),
            cell(c.candidate),
            cell(c.n),
            _delta(api.Delta(c.delta, c.ci, c.n, c.p_value)),
            *(_delta(c.parts[part]) for part in parts),
            cell(_p(c.p_value)),
            cell(f"{c.flips.pass_to_fail} / {c.flips.fail_to_pass}"),
            cell(_p(c.flips.mcnemar_p)),
            cell(f"{c.only_baseline} / {c.only_candidate}"),
            cell("worse" if c.worse else "-", style="bold red" if c.worse else ""),
        ]
        for c in found
    ]
    unscored = sum(c.unscored for c in found)
    notes = [
        "p: sign-flip permutation test of the item score differences; "
        f"{unscored} paired items unscored on a side (policy {first.policy}: "
        + ("counted as 0)" if first.policy == "zero" else "left out)"),
        "checks -/+: checks the baseline met and the candidate did not / the reverse; "
        "only b/c: items only the baseline / only the candidate answered",
    ]
    if first.different_judges:
        notes.append(f"different judges: {first.judge} (--allow-different-judges)")
    return Grid(
        f"Candidate minus baseline, paired on shared items ({level}% paired bootstrap "
        f"intervals; judge: {first.judge})",
        [Column("baseline", numeric=False), Column("candidate", numeric=False)]
        + [Column(header) for header in headers],
        rows,
        notes=notes,
        label=1,
    )


def _by_tag(c: api.Comparison) -> Grid | None:
    if not c.by_tag:
        return None
    return Grid(
        "Delta by tag (p adjusted by Benjamini-Hochberg over the tag cells)",
        [Column("facet", numeric=False), Column("value", numeric=False)]
        + [Column(header) for header in ("n", "delta", "p", "p adjusted")],
        [
            [
                cell(tag.facet),
                cell(tag.value),
                cell(tag.n),
                _delta(tag),
                cell(_p(tag.p_value)),
                cell(_p(tag.p_adjusted)),
            ]
            for tag in c.by_tag
        ],
        label=1,
    )


def _details(c: api.Comparison, printout: Printout) -> None:
    """The per-tag deltas and the items that moved most, of one comparison."""
    printout.grids(_by_tag(c))
    for item in c.items:
        head = (
            f"{escape(item.id)}: {item.baseline_score} -> {item.candidate_score} "
            f"({value_text(item.delta, signed=True)})"
        )
        if printout.table:
            console.rule(head, align="left")
        else:
            printout.text(head)
        for check in item.flipped:
            arrow = "met -> unmet" if check.baseline else "unmet -> met"
            printout.text(f"  {arrow}: {escape(check.text)}")
        for label, answer in (
            (c.baseline, item.baseline_answer),
            (c.candidate, item.candidate_answer),
        ):
            shown = (answer or "(no answer)")[:ANSWER_CHARS].replace("\n", " ")
            printout.text(f"  [bold]{escape(label)}[/]: {escape(shown)}")


@app.command()
@with_output
def compare(
    runs: Annotated[
        list[Path],
        typer.Argument(help="One run (compare two of its models) or two runs (one model each)."),
    ],
    baseline: Annotated[str | None, typer.Option(help="Baseline model (in the first run).")] = None,
    candidate: Annotated[
        str | None,
        typer.Option(
            help="Candidate model (in the second run, if two); left out with one run, every "
            "other model is compared with the baseline, one row each."
        ),
    ] = None,
    judge_id: Annotated[
        str | None,
        typer.Option(
            "--judge-id",
            help="The judge whose verdicts score both sides (default: the one judge the runs "
            "share).",
        ),
    ] = None,
    allow_different_judges: Annotated[
        bool,
        typer.Option(help="Compare two runs judged by different judges (the output says so)."),
    ] = False,
    fail_if_worse: Annotated[
        bool,
        typer.Option(
            help="Exit 1 when a candidate is worse beyond chance (p < --alpha) or by more "
            "than --margin points."
        ),
    ] = False,
    alpha: Annotated[
        float, typer.Option(min=0.0001, max=0.5, help="Test level; intervals at 1 - alpha.")
    ] = 0.05,
    margin: Annotated[
        float | None,
        typer.Option(min=0.0, help="A drop of more than this many points counts as worse."),
    ] = None,
    top: Annotated[int, typer.Option(min=0, help="Items that moved most to show.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap and permutation test.")] = 0,
    resamples: Annotated[
        int, typer.Option(min=100, help="Bootstrap and permutation resamples.")
    ] = 10_000,
    printout: Printout = TABLE,
) -> None:
    """Paired comparison of a candidate with a baseline on the items both answered, scored
    by the benchmark's protocol: the delta with its paired bootstrap interval and sign-flip
    test, per-tag deltas, checks that flipped (McNemar) and the items that moved most."""
    settings = api.CompareSettings(
        judge_id=judge_id,
        allow_different_judges=allow_different_judges,
        alpha=alpha,
        margin=margin,
        top=top,
        seed=seed,
        resamples=resamples,
    )
    if len(runs) == 1 and candidate is None and baseline is not None:
        found = api.compare_each(runs[0], baseline, settings)
    else:
        found = [api.compare(runs, baseline, candidate, settings)]
    printout.grids(_summary(found))
    if len(found) == 1:
        _details(found[0], printout)
    shown = [c.as_json() for c in found]
    printout.finish(lambda: shown[0] if candidate is not None or len(runs) == 2 else shown)
    worse = [c for c in found if c.worse]
    if fail_if_worse and worse:
        for c in worse:
            err_console.print(
                f"worse: {escape(c.candidate)} vs {escape(c.baseline)}: {c.delta:+.2f} points "
                f"(p = {_p(c.p_value)}, margin {c.margin})",
                highlight=False,
                soft_wrap=True,
            )
        raise typer.Exit(GATE_FAILED)
