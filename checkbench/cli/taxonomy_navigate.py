"""`checkbench taxonomy navigate`: scores, ranks and findings per taxonomy node (SCAN)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from checkbench import api
from checkbench.cli.taxonomy import taxonomy_app
from checkbench.console.options import AsJson, JudgeId
from checkbench.console.render import console
from checkbench.errors import CheckbenchError
from checkbench.llm import backend_name


@taxonomy_app.command()
def navigate(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with checklist verdicts.")],
    taxonomy: Annotated[
        Path | None, typer.Option("--taxonomy", "-t", help="Taxonomy JSON file.")
    ] = None,
    facets: Annotated[
        str | None,
        typer.Option(
            help="Navigate by tag facets instead of a taxonomy, top level first, e.g. "
            "task,subtask (FB-Bench's tags)."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="Whose strengths and weaknesses: a model of the run, e.g. local (default: all).",
        ),
    ] = None,
    judge_id: JudgeId = None,
    min_n: Annotated[int, typer.Option(min=1, help="Scored items a node needs per model.")] = 5,
    threshold: Annotated[
        float, typer.Option(min=0, help="Rank shift beyond which a node is a finding.")
    ] = 5.0,
    top: Annotated[int, typer.Option(min=1, help="Most divergent nodes to list.")] = 10,
    pruned: Annotated[
        bool, typer.Option("--prune/--no-prune", help="Navigate the pruned taxonomy.")
    ] = True,
    as_json: AsJson = False,
) -> None:
    """Scores and ranks per taxonomy node; strengths, weaknesses (and how many looser rules
    would flag) and uneven parents. With one model: its scores per node."""
    settings = api.NavigationSettings(min_n=min_n, threshold=threshold)
    levels = [facet.strip() for facet in (facets or "").split(",") if facet.strip()]
    nav = api.taxonomy_navigate(
        run_dir, taxonomy, judge=judge_id, settings=settings, pruned=pruned, facets=levels
    )
    if as_json:
        print(json.dumps(nav.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    from checkbench.scan.navigation_view import navigation_view

    names = nav.models if model is None else [resolve_model(model, nav.models)]
    console.print(navigation_view(nav, names, top))


def resolve_model(model: str, known: list[str]) -> str:
    """The run's name for `model`, which may also be given as a model spec such as `local`."""
    if model in known:
        return model
    try:
        return backend_name(model)
    except CheckbenchError:
        return model
