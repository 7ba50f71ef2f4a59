"""Terminal renderings of a navigation (SCAN): nodes, one model's profile, divergent nodes."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from checkbench.errors import InputError
from checkbench.scan.navigation import TOO_FEW, Cell, Finding, Instability, Navigation
from checkbench.scan.paths import SEP


def _score(cell: Cell) -> str:
    if cell.mean is None:
        return "-"
    return f"{cell.mean:.3f} [{cell.low:.3f}, {cell.high:.3f}]"


def _findings_view(title: str, findings: list[Finding]) -> RenderableType:
    if not findings:
        return Text(f"{title}: none", style="dim")
    table = Table(title=title, title_justify="left")
    for column in ("node", "rank", "overall", "shift", "score [CI]", "n", "compared with"):
        table.add_column(column)
    for f in findings:
        table.add_row(
            escape(f.path),
            f"{f.rank:g}",
            f"{f.overall_rank:g}",
            f"{f.shift:+g}",
            _score(f.cell),
            str(f.cell.n),
            f"{escape(f.versus)} (rank {f.versus_cell.rank:g}) {_score(f.versus_cell)}",
        )
    return table


def _unstable_view(rows: list[Instability]) -> RenderableType:
    unstable = [row for row in rows if row.unstable]
    if not unstable:
        return Text("Unstable parents: none", style="dim")
    table = Table(title="Unstable parents (std of children's ranks)", title_justify="left")
    for column in ("node", "std", "children"):
        table.add_column(column)
    for row in unstable:
        table.add_row(escape(row.path), f"{row.std:.2f}", str(row.children))
    return table


def profile_view(nav: Navigation, model: str) -> Group:
    """Terminal rendering of one model's strengths, weaknesses and unstable parents."""
    if model not in nav.profiles:
        known = ", ".join(nav.models)
        raise InputError(f"unknown model '{model}' (known: {known})", field="model")
    profile, settings = nav.profiles[model], nav.settings
    rank = "not ranked" if profile.overall.rank is None else f"rank {profile.overall.rank:g}"
    too_few = sum(node.status == TOO_FEW for node in nav.nodes)
    rule = f"shift > {settings.threshold:g} and separate {settings.level:.0%} intervals"
    return Group(
        Text.from_markup(
            f"[bold]{escape(model)}[/] overall {_score(profile.overall)}, {rank} of "
            f"{len(nav.models)}, n={profile.overall.n}, unscored={profile.overall.unscored}"
        ),
        _findings_view(f"Strengths ({rule})", profile.strengths),
        _findings_view(f"Weaknesses ({rule})", profile.weaknesses),
        _unstable_view(profile.instability),
        Text(
            f"{too_few} of {len(nav.nodes)} nodes not ranked: some model has fewer than "
            f"{settings.min_n} scored items there",
            style="dim",
        ),
    )


def _depth(path: str) -> int:
    return path.count(SEP)


def nodes_view(nav: Navigation) -> Table:
    """Every node (indented by depth) with each model's score, interval and rank there."""
    table = Table(title="Scores per taxonomy node (mean [95% CI] #rank)", title_justify="left")
    table.add_column("node")
    table.add_column("items", justify="right")
    for model in nav.models:
        table.add_column(escape(model), overflow="fold")
    for node in [nav.overall, *nav.nodes]:
        name = "(overall)" if not node.path else "  " * _depth(node.path) + node.path.split(SEP)[-1]
        cells = [
            _score(cell) + (f" #{cell.rank:g}" if cell.rank is not None else f" [dim]{TOO_FEW}[/]")
            for cell in node.cells.values()
        ]
        table.add_row(escape(name), str(node.items), *cells)
    return table


def divergent_view(nav: Navigation, k: int = 10) -> RenderableType:
    """The k ranked nodes where best and worst model differ most."""
    nodes = nav.most_divergent(k)
    if not nodes:
        return Text("Most divergent nodes: none ranked", style="dim")
    table = Table(title="Most divergent nodes (best minus worst mean)", title_justify="left")
    for column in ("node", "spread", "best", "worst"):
        table.add_column(column)
    for node in nodes:
        ranked = sorted(node.cells.items(), key=lambda pair: pair[1].rank or 0.0)
        table.add_row(
            escape(node.path),
            f"{node.spread:.3f}",
            escape(ranked[0][0]),
            escape(ranked[-1][0]),
        )
    return table
