"""Terminal renderings of a navigation (SCAN): nodes, one model's profile, findings per rule,
divergent nodes, and `navigation_view`, all of them with the notes that explain the gaps.

The notes say why a navigation ranks or flags less than it could, in sentences that name the
cause: items without a tag of the hierarchy, nodes with no or few items, the models short of
scored items (and whether they never answered or went unscored), a threshold no rank shift can
exceed. A single model's navigation shows its scores per node only: ranks need two models.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from checkbench.console.tables import Cell as Entry  # the navigation's Cell is a model at a node
from checkbench.console.tables import Column, Fitted, Grid, estimate
from checkbench.errors import InputError
from checkbench.scan.navigation import TOO_FEW, Cell, Finding, Instability, Navigation, NodeStats
from checkbench.scan.paths import label, split_path
from checkbench.stats.notation import UNDEFINED, estimate_text, value_text

Part = Grid | Text
"""What a navigation prints: a table, or a line of text."""

ONE_MODEL = (
    "one model: its scores per node only (ranks, strengths, weaknesses and divergent nodes "
    "compare two or more models)"
)


def coverage_notes(nav: Navigation) -> list[str]:
    """What the hierarchy leaves out: items that carry none of its tags."""
    items = nav.overall.items
    if items and nav.untagged == items:
        return [
            "no item carries a tag of this hierarchy, so every node is empty: tag the items "
            "(`checkbench scan tag`) or navigate by tag facets (--facets)"
        ]
    if nav.untagged:
        return [f"{nav.untagged} of {items} items carry no tag of this hierarchy (overall only)"]
    return []


def _why(missing: int, unscored: int) -> str:
    return f"{missing} items unanswered, {unscored} unscored"


def _shortfalls(nodes: list[NodeStats], min_n: int) -> str:
    """The models short of `min_n` scored items at these nodes: at how many, and why."""
    short: dict[str, list[int]] = {}  # model -> [nodes, unanswered, answered but unscored]
    for node in nodes:
        for model, cell in node.cells.items():
            if cell.n < min_n:
                tally = short.setdefault(model, [0, 0, 0])
                tally[0] += 1
                tally[1] += cell.missing
                tally[2] += cell.unscored - cell.missing
    return ", ".join(
        f"{model} at {count} of them ({_why(missing, unscored)})"
        for model, (count, missing, unscored) in short.items()
    )


def unranked_notes(nav: Navigation) -> list[str]:
    """Why the overall row or nodes are not ranked, by cause."""
    min_n, notes = nav.settings.min_n, []
    if nav.overall.status == TOO_FEW:
        short = [
            f"{model} has {cell.n} ({_why(cell.missing, cell.unscored - cell.missing)})"
            for model, cell in nav.overall.cells.items()
            if cell.n < min_n
        ]
        notes.append(
            f"overall not ranked, so no strengths or weaknesses: fewer than {min_n} scored "
            "items in all: " + ", ".join(short)
        )
    unranked = [node for node in nav.nodes if node.status == TOO_FEW]
    if not unranked:
        return notes
    empty = sum(node.items == 0 for node in unranked)
    small = sum(0 < node.items < min_n for node in unranked)
    gaps = [node for node in unranked if node.items >= min_n]
    causes = [f"{empty} have no item tagged"] if empty else []
    causes += [f"{small} have fewer than {min_n} items"] if small else []
    if gaps:
        causes.append(
            f"{len(gaps)} have enough items ({min_n} or more) but a model has fewer than "
            f"{min_n} of them scored there: " + _shortfalls(gaps, min_n)
        )
    notes.append(f"{len(unranked)} of {len(nav.nodes)} nodes not ranked: " + "; ".join(causes))
    return notes


def finding_notes(nav: Navigation) -> list[str]:
    """Why the rule in force cannot flag anything, when the number of models rules it out."""
    models, threshold = len(nav.models), nav.settings.threshold
    if nav.overall.status == TOO_FEW or models < 2 or threshold < models - 1:
        return []
    return [
        f"with {models} models a rank shift is at most {models - 1}, so none exceeds the "
        f"threshold {threshold:g}: lower --threshold (see the looser rules)"
    ]


def _score(cell: Cell) -> str:
    """The cell's mean and interval as a score (0-100), in the notation of stats.notation."""
    low, high, mean = (None if v is None else v * 100 for v in (cell.low, cell.high, cell.mean))
    return estimate_text(mean, low, high)


def _score_cell(cell: Cell, detail: str = "") -> Entry:
    """The cell's score with its interval (and `detail`) below it."""
    low, high, mean = (None if v is None else v * 100 for v in (cell.low, cell.high, cell.mean))
    shown = estimate(mean, low, high)
    return Entry(shown.value, " ".join(filter(None, [shown.detail, detail])))


def _findings_view(title: str, findings: list[Finding]) -> Grid | Text:
    if not findings:
        return Text(f"{title}: none", style="dim")
    headers = ("rank", "overall", "shift", "score", "n", "compared with", "its rank", "its score")
    return Grid(
        title,
        [Column("node", numeric=False)]
        + [Column(h, numeric=h not in ("compared with",)) for h in headers],
        [
            [
                Entry(label(f.path)),
                Entry(f"{f.rank:g}"),
                Entry(f"{f.overall_rank:g}"),
                Entry(f"{f.shift:+g}"),
                _score_cell(f.cell),
                Entry(str(f.cell.n)),
                Entry(f.versus),
                Entry(f"{f.versus_cell.rank:g}"),
                _score_cell(f.versus_cell),
            ]
            for f in findings
        ],
    )


def _unstable_view(rows: list[Instability]) -> Grid | Text:
    unstable = [row for row in rows if row.unstable]
    if not unstable:
        return Text("Unstable parents: none", style="dim")
    return Grid(
        "Unstable parents (std of children's ranks)",
        [Column("node", numeric=False), Column("std"), Column("children")],
        [
            [Entry(label(row.path)), Entry(f"{row.std:.2f}"), Entry(str(row.children))]
            for row in unstable
        ],
    )


def check_model(nav: Navigation, model: str) -> None:
    """InputError unless `model` is one of the navigation's."""
    if model not in nav.profiles:
        known = ", ".join(nav.models)
        raise InputError(f"unknown model '{model}' (known: {known})", field="model")


def profile_parts(nav: Navigation, model: str) -> list[Part]:
    """One model's overall line, strengths, weaknesses and unstable parents."""
    check_model(nav, model)
    profile, settings = nav.profiles[model], nav.settings
    rank = "not ranked" if profile.overall.rank is None else f"rank {profile.overall.rank:g}"
    rule = f"shift > {settings.threshold:g} and separate {settings.level:.0%} intervals"
    return [
        Text.assemble(
            (model, "bold"),
            f" overall {_score(profile.overall)}, {rank} of {len(nav.models)}, "
            f"n={profile.overall.n}, unscored={profile.overall.unscored}",
        ),
        _findings_view(f"Strengths ({rule})", profile.strengths),
        _findings_view(f"Weaknesses ({rule})", profile.weaknesses),
        _unstable_view(profile.instability),
    ]


def view(parts: list[Part]) -> Group:
    """Parts as one Rich renderable: each grid laid out for the width it is printed at."""
    return Group(*(Fitted(part) if isinstance(part, Grid) else part for part in parts))


def profile_view(nav: Navigation, model: str) -> Group:
    """Terminal rendering of one model's strengths, weaknesses and unstable parents."""
    return view(profile_parts(nav, model))


def _name(node: NodeStats) -> str:
    """The node's name indented by its depth, "(overall)" for the root."""
    names = split_path(node.path)
    return "  " * (len(names) - 1) + names[-1] if names else "(overall)"


def _empty_why(node: NodeStats, cell: Cell) -> str:
    """Why a cell has no score: no item at the node, or none of its items scored (how many
    the model never answered, how many went unscored)."""
    if node.items == 0:
        return "(no item tagged)"
    answered = cell.unscored - cell.missing
    return f"(none scored: {cell.missing} unanswered, {answered} unscored)"


def _node_cell(node: NodeStats, cell: Cell, ranked: bool = True) -> Entry:
    """The cell's score, interval and (when `ranked`) rank or why it has none; an empty cell
    says why it is empty."""
    if cell.mean is None:
        return Entry(UNDEFINED, _empty_why(node, cell))
    if not ranked:
        return _score_cell(cell)
    return _score_cell(cell, f"#{cell.rank:g}" if cell.rank is not None else TOO_FEW)


def nodes_view(nav: Navigation) -> Grid:
    """Every node (indented by depth) with each model's score, interval and rank there; an
    empty cell says why."""
    return Grid(
        f"Scores per taxonomy node ({nav.ranked_by} [95% CI] #rank)",
        [Column("node", numeric=False), Column("items")]
        + [Column(model, name=True) for model in nav.models],
        [
            [
                Entry(_name(node)),
                Entry(str(node.items)),
                *(_node_cell(node, node.cells[model]) for model in nav.models),
            ]
            for node in [nav.overall, *nav.nodes]
        ],
    )


def scores_view(nav: Navigation, model: str) -> Grid:
    """One model's score, interval and counts at every node, without ranks."""
    return Grid(
        f"Scores of {model} per taxonomy node ({nav.ranked_by} [95% CI])",
        [Column("node", numeric=False)]
        + [Column(column) for column in ("items", "scored", "unscored", "score")],
        [
            [
                Entry(_name(node)),
                Entry(str(node.items)),
                Entry(str(node.cells[model].n)),
                Entry(str(node.cells[model].unscored)),
                _node_cell(node, node.cells[model], ranked=False),
            ]
            for node in [nav.overall, *nav.nodes]
        ],
        detail_below=False,
    )


def rules_view(nav: Navigation, models: list[str]) -> Grid:
    """Strengths / weaknesses of `models` under the rule in force (the first cell) and the
    looser ones: rows relax the shift, columns the intervals."""
    counts = {(c.rule.threshold, c.rule.level): c for c in nav.rule_counts}
    thresholds = list(dict.fromkeys(threshold for threshold, _ in counts))
    levels = list(dict.fromkeys(level for _, level in counts))
    shown = "" if models == nav.models else f" of {', '.join(models)}"
    rows = []
    for threshold in thresholds:
        cells = []
        for level in levels:
            count = counts[threshold, level]
            strengths = sum(count.strengths.get(model, 0) for model in models)
            weaknesses = sum(count.weaknesses.get(model, 0) for model in models)
            cells.append(Entry(f"{strengths} / {weaknesses}"))
        rows.append([Entry(f"> {threshold:g}" if threshold else "any"), *cells])
    return Grid(
        f"Strengths / weaknesses{shown} by rule (first cell: the rule in force)",
        [Column("rank shift", numeric=False)]
        + [
            Column(f"{level:.0%} intervals apart" if level else "intervals ignored")
            for level in levels
        ],
        rows,
    )


def divergent_view(nav: Navigation, k: int = 10) -> Grid | Text:
    """The k ranked nodes where best and worst model differ most."""
    nodes = nav.most_divergent(k)
    if not nodes:
        return Text("Most divergent nodes: none ranked", style="dim")
    rows = []
    for node in nodes:
        ranked = sorted(node.cells.items(), key=lambda pair: pair[1].rank or 0.0)
        rows.append(
            [
                Entry(label(node.path)),
                Entry(value_text(None if node.spread is None else node.spread * 100)),
                Entry(ranked[0][0]),
                Entry(ranked[-1][0]),
            ]
        )
    return Grid(
        "Most divergent nodes (best minus worst mean)",
        [Column("node", numeric=False), Column("spread")]
        + [Column(h, numeric=False) for h in ("best", "worst")],
        rows,
    )


def _notes(lines: list[str]) -> list[Part]:
    return [Text(line, style="dim") for line in lines]


def navigation_parts(nav: Navigation, models: list[str], top: int = 10) -> list[Part]:
    """Everything `checkbench scan navigate` prints for `models` (e.g. all of them): with
    one model its scores per node; else the nodes, each model's profile, the findings per rule
    and the most divergent nodes, each gap explained by a note."""
    for model in models:
        check_model(nav, model)
    notes = coverage_notes(nav)
    if len(nav.models) == 1:
        return [scores_view(nav, nav.models[0]), *_notes([*notes, ONE_MODEL])]
    return [
        nodes_view(nav),
        *_notes(notes + unranked_notes(nav)),
        *(part for model in models for part in profile_parts(nav, model)),
        rules_view(nav, models),
        *_notes(finding_notes(nav)),
        divergent_view(nav, top),
    ]


def navigation_view(nav: Navigation, models: list[str], top: int = 10) -> Group:
    """`navigation_parts` as one Rich renderable."""
    return view(navigation_parts(nav, models, top))
