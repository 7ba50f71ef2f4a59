"""Why a navigation ranks or flags less than it could, in sentences that name the cause: items
without a tag of the hierarchy, nodes with no or few items, the models short of scored items
(and whether they never answered or went unscored), a threshold no rank shift can exceed."""

from __future__ import annotations

from checkbench.scan.navigation import TOO_FEW, Navigation, NodeStats


def coverage_notes(nav: Navigation) -> list[str]:
    """What the hierarchy leaves out: items that carry none of its tags."""
    items = nav.overall.items
    if items and nav.untagged == items:
        return [
            "no item carries a tag of this hierarchy, so every node is empty: tag the items "
            "(`checkbench taxonomy tag`) or navigate by tag facets (--facets)"
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
        f"{model} at {count} ({_why(missing, unscored)})"
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
            f"{len(gaps)} have {min_n}+ items but fewer than {min_n} scored for "
            + _shortfalls(gaps, min_n)
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
