"""`checkbench scan ...`: SCAN's commands (capability taxonomies: show, diff, validate, build;
tagging, RealMix, the PC^2 judge, navigation) and what they print.

Each command imports SCAN's modules and API (`scan.api`) when it runs, so `checkbench --help`
loads none of them; a navigation's tables are in `scan.navigation_view`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from checkbench.choices import PC2Mode, TagTurns, TaxonomyFormat
from checkbench.console import Group
from checkbench.console.options import (
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    TABLE,
    AsJson,
    JudgeId,
    JudgeModel,
    Model,
    with_model_options,
    with_output,
)
from checkbench.console.output import Printout
from checkbench.console.render import (
    console,
    estimate_inline,
    exit_if_all_failed,
    print_tally,
)
from checkbench.console.tables import Cell, Column, Grid, estimate
from checkbench.errors import CheckbenchError
from checkbench.llm import ModelOptions, backend_name
from checkbench.stats.notation import RATE_DIGITS
from checkbench.steps.progress import RichProgress

if TYPE_CHECKING:
    from checkbench.scan.builder import TaxBuilderReport
    from checkbench.scan.pc2 import PC2Report
    from checkbench.scan.tree import Taxonomy

app = typer.Typer(
    cls=Group,
    help="SCAN capability taxonomies: build, tag, synthesize, judge with PC^2, navigate.",
    no_args_is_help=True,
)

TaxonomyFile = Annotated[
    Path, typer.Argument(help="Taxonomy JSON file (checkbench's format or SCAN's nested names).")
]
TaxonomyFormatOption = Annotated[
    TaxonomyFormat,
    typer.Option(
        help="Taxonomy format to write: checkbench (names and descriptions) or scan (SCAN's "
        "nested object of names; descriptions are dropped)."
    ),
]
TaxonomyOption = Annotated[Path, typer.Option("--taxonomy", "-t", help="Taxonomy JSON file.")]
RunDir = Annotated[Path, typer.Option("--out", "-o", help="Run directory (resumable).")]
BenchOut = Annotated[Path, typer.Option("--bench-out", help="Where to write the items (JSONL).")]
UNUSABLE = "without a usable answer"
ReasonChars = Annotated[
    int, typer.Option(min=0, help="Length cap of the model's reasons (shorter is cheaper).")
]


def _size(tree: Taxonomy) -> str:
    return f"{len(tree.paths())} nodes, {len(tree.leaves())} leaves, depth {tree.depth()}"


def _tally(counts: dict[str, int]) -> str:
    """Counts as "5 added, 2 exists" (or "none"), for one-line summaries."""
    return ", ".join(f"{n} {what}" for what, n in counts.items()) or "none"


def _outcomes(counts: dict[str, int]) -> str:
    """Step outcomes tallied; the recorded outcome "failed" is a step left without a usable
    answer (a failed call or an unreadable answer), which the words must not confuse with
    the failed calls of the calls table."""
    return _tally({UNUSABLE if what == "failed" else what: n for what, n in counts.items()})


@app.command()
def show(
    taxonomy: TaxonomyFile,
    descriptions: Annotated[bool, typer.Option(help="Show node descriptions.")] = True,
    as_json: AsJson = False,
    taxonomy_format: TaxonomyFormatOption = "checkbench",
) -> None:
    """Print a taxonomy (checkbench's or SCAN's format) as a tree with its size, or as JSON."""
    from checkbench.scan.tree import dump_taxonomy, load_taxonomy, tree_view

    tree = load_taxonomy(taxonomy)
    if as_json:
        print(dump_taxonomy(tree, taxonomy_format))
        return
    console.print(tree_view(tree, descriptions=descriptions))
    console.print(_size(tree), highlight=False)


@app.command("diff")
def diff_command(old: TaxonomyFile, new: TaxonomyFile, as_json: AsJson = False) -> None:
    """What changed from OLD to NEW: added, removed and moved nodes, new descriptions."""
    from checkbench.scan.tree import diff, load_taxonomy

    change = diff(load_taxonomy(old), load_taxonomy(new))
    if as_json:
        print(change.model_dump_json(indent=2))
        return
    if change.is_empty():
        console.print("no differences")
        return
    lines = [f"[green]+ {escape(path)}[/]" for path in change.added]
    lines += [f"[red]- {escape(path)}[/]" for path in change.removed]
    lines += [f"[yellow]~ {escape(m.old)} -> {escape(m.new)}[/]" for m in change.moved]
    lines += [f"[blue]* {escape(d.path)}[/]: description changed" for d in change.described]
    for line in lines:
        console.print(line, highlight=False)


@app.command()
def validate(taxonomy: TaxonomyFile) -> None:
    """Check a taxonomy file: one error line and exit code 2 when it is invalid."""
    from checkbench.scan.prune import prune
    from checkbench.scan.tree import load_taxonomy

    tree = load_taxonomy(taxonomy)
    pruned = prune(tree).taxonomy == tree
    console.print(
        f"ok: {_size(tree)}, " + ("already pruned" if pruned else "pruning would change it"),
        highlight=False,
    )


@app.command()
@with_model_options
@with_output
def build(
    queries: Annotated[Path, typer.Argument(help="Queries: a JSONL file of items.")],
    out: RunDir,
    taxonomy_out: Annotated[
        Path, typer.Option("--taxonomy-out", help="Where to write the pruned taxonomy.")
    ],
    model: Model = DEFAULT_MODEL,
    seed_taxonomy: Annotated[
        Path | None,
        typer.Option(help="Taxonomy to grow (default: the seven SCAN domains)."),
    ] = None,
    max_tags: Annotated[int, typer.Option(min=1, help="Capabilities per query.")] = 3,
    max_depth: Annotated[
        int, typer.Option(min=2, help="Levels insertion may reach (domains are level 1).")
    ] = 4,
    reason_chars: ReasonChars = 200,
    refine: Annotated[bool, typer.Option(help="Run the refinement pass.")] = True,
    taxonomy_format: TaxonomyFormatOption = "checkbench",
    options: ModelOptions = DEFAULT_OPTIONS,
    printout: Printout = TABLE,
) -> None:
    """Grow a capability taxonomy from real queries (TaxBuilder); rerunning resumes."""
    from checkbench.scan import api
    from checkbench.scan.builder import TaxBuilderSettings

    settings = TaxBuilderSettings(
        max_tags=max_tags, max_depth=max_depth, reason_chars=reason_chars, refine=refine
    )
    with RichProgress() as progress:
        result = api.taxonomy_build(
            queries,
            out,
            taxonomy_out,
            model=model,
            seed=seed_taxonomy,
            settings=settings,
            options=options,
            progress=progress,
            taxonomy_format=taxonomy_format,
        )
    report = result.report
    printout.text(
        f"{report.queries} queries, {report.tags} capabilities "
        f"({report.extraction_failed} extractions without a usable answer); "
        f"insert: {_outcomes(report.insert)}; refine: {_outcomes(report.refine)}; "
        f"{report.nodes_before_pruning} nodes before pruning, {report.nodes} after "
        f"({report.leaves} leaves, depth {report.depth})"
    )
    printout.text(_build_steps(report))
    for cause, problem in report.examples.items():
        printout.text(f"  {escape(cause)}: e.g. {escape(problem)}")
    if not report.grown:
        printout.text(_not_grown(report))
    printout.info(f"taxonomy written to [bold]{taxonomy_out}[/]")
    print_tally([result.summary], result.tally, printout=printout)
    printout.finish(lambda: report.model_dump(mode="json"))
    exit_if_all_failed([result.summary])


def _build_steps(report: TaxBuilderReport) -> str:
    """Model answers and failures per build step, and the depth pruning started from."""
    inserted = sum(report.insert.values())
    calls = [
        f"{step} {n}" + (f" ({n / inserted:.1f} per insertion)" if step == "insert" else "")
        for step, n in report.calls.items()
        if step != "insert" or inserted
    ]
    failures = [
        f"{step} {sum(causes.values())} ({escape(_tally(causes))})" if causes else f"{step} none"
        for step, causes in report.failures.items()
    ]
    return (
        f"model answers: {', '.join(calls)}; no usable answer: {', '.join(failures)}; "
        f"depth {report.depth_before_pruning} before pruning"
    )


def _not_grown(report: TaxBuilderReport) -> str:
    """Why the pruned taxonomy holds nothing the seed did not."""
    added = report.insert.get("added", 0)
    why = (
        f"pruning folded the {added} node{'' if added == 1 else 's'} added into the seed's "
        "(single-child chains collapse)"
        if added
        else "no capability was added"
    )
    if report.extraction_failed:
        why += (
            f"; {report.extraction_failed} of {report.queries} queries gave no usable "
            "capability (see the examples above)"
        )
    return f"[yellow]the taxonomy is the seed's, grown by nothing[/]: {why}"


@app.command()
@with_model_options
@with_output
def tag(
    bench: Annotated[Path, typer.Argument(help="Benchmark items (JSONL).")],
    taxonomy: TaxonomyOption,
    out: RunDir,
    bench_out: BenchOut,
    model: Model = DEFAULT_MODEL,
    max_tags: Annotated[
        int,
        typer.Option(
            min=1, help="Nodes chosen per level of the descent, hence at most that many tags."
        ),
    ] = 4,
    reason_chars: ReasonChars = 160,
    options: ModelOptions = DEFAULT_OPTIONS,
    turns: Annotated[
        TagTurns,
        typer.Option(
            help="The user turns that state the task: the first (the default; later turns are "
            "often feedback) or all of them."
        ),
    ] = "first",
    printout: Printout = TABLE,
) -> None:
    """Give every item a domain and hierarchical taxonomy tags, read from its task and chosen
    level by level down the taxonomy."""
    from checkbench.scan import api
    from checkbench.scan.tagging import TagSettings

    settings = TagSettings(max_tags=max_tags, reason_chars=reason_chars, turns=turns)
    with RichProgress() as progress:
        result = api.taxonomy_tag(
            bench,
            taxonomy,
            out,
            bench_out,
            model=model,
            settings=settings,
            options=options,
            progress=progress,
        )
    report = result.report
    printout.text(
        f"{report.tagged} of {report.items} items tagged ({report.nothing_fits} fit no node "
        f"below their domain); [red]{report.domain_failed + report.tags_failed} without a "
        "usable answer[/]; "
        f"domains: {escape(_tally(report.domains))}; written to [bold]{bench_out}[/]"
    )
    print_tally([result.summary], result.tally, printout=printout)
    printout.finish(lambda: report.model_dump(mode="json"))
    exit_if_all_failed([result.summary])


@app.command()
@with_model_options
@with_output
def synthesize(
    tagged: Annotated[Path, typer.Argument(help="Tagged items (JSONL), e.g. from `tag`.")],
    taxonomy: TaxonomyOption,
    min_per_leaf: Annotated[int, typer.Option(min=1, help="Items wanted per leaf.")],
    out: RunDir,
    bench_out: BenchOut,
    model: Model = DEFAULT_MODEL,
    max_rounds: Annotated[int, typer.Option(min=1, help="Rounds of synthesis at most.")] = 3,
    query_chars: Annotated[int, typer.Option(min=1, help="Length cap of a new query.")] = 800,
    seed: Annotated[int, typer.Option(help="Seed for sampling and picking references.")] = 0,
    options: ModelOptions = DEFAULT_OPTIONS,
    printout: Printout = TABLE,
) -> None:
    """RealMix: synthesize and quality-filter queries until every leaf has enough items."""
    from checkbench.scan import api
    from checkbench.scan.realmix import MixSettings

    settings = MixSettings(
        min_per_leaf=min_per_leaf, max_rounds=max_rounds, new_query_chars=query_chars, seed=seed
    )
    with RichProgress() as progress:
        result = api.taxonomy_synthesize(
            tagged,
            taxonomy,
            out,
            bench_out,
            model=model,
            settings=settings,
            options=options,
            progress=progress,
        )
    report = result.report
    printout.text(
        f"{len(result.added)} queries added in {report.rounds} "
        f"round{'' if report.rounds == 1 else 's'} "
        f"({escape(_outcomes(report.outcomes))}); "
        f"{len(report.short_after)} of {report.leaves} leaves still short, "
        f"{len(report.no_reference)} without any reference; written to [bold]{bench_out}[/]"
    )
    print_tally([result.summary], result.tally, printout=printout)
    printout.finish(lambda: report.model_dump(mode="json"))
    exit_if_all_failed([result.summary])


@app.command()
@with_model_options
@with_output
def pc2(
    run_dir: Annotated[Path, typer.Argument(help="Run directory with responses.")],
    judge_model: JudgeModel = DEFAULT_MODEL,
    aux: Annotated[
        list[str] | None,
        typer.Option("--aux", help="Auxiliary model whose answer shapes the criteria; repeat."),
    ] = None,
    pc2_mode: Annotated[
        PC2Mode,
        typer.Option(
            "--mode", help="Grade each response alone (pointwise), compare pairs (pairwise), both."
        ),
    ] = "both",
    max_criteria: Annotated[int, typer.Option(min=3, max=9, help="Criteria at most.")] = 9,
    aux_max_tokens: Annotated[int, typer.Option(min=1, help="Auxiliary answer length.")] = 512,
    reason_chars: ReasonChars = 160,
    human: Annotated[
        Path | None,
        typer.Option(help="Human preferences (JSONL: item_id, chosen, rejected) to agree with."),
    ] = None,
    options: ModelOptions = DEFAULT_OPTIONS,
    printout: Printout = TABLE,
) -> None:
    """Judge the run's responses with PC^2: criteria derived by comparing auxiliary answers."""
    from checkbench.scan import api
    from checkbench.scan.pc2 import PC2Settings

    settings = PC2Settings(
        mode=pc2_mode,
        max_criteria=max_criteria,
        aux_max_tokens=aux_max_tokens,
        reason_chars=reason_chars,
    )
    with RichProgress() as progress:
        result = api.taxonomy_pc2(
            run_dir,
            judge_model,
            aux or [],
            settings=settings,
            human=human,
            options=options,
            progress=progress,
        )
    print_pc2(result.report, printout)
    print_tally([result.summary], result.tally, printout=printout)
    printout.finish(lambda: result.report.model_dump(mode="json"))
    exit_if_all_failed([result.summary])


@app.command()
@with_output
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
    printout: Printout = TABLE,
) -> None:
    """Scores and ranks per taxonomy node; strengths, weaknesses (and how many looser rules
    would flag) and uneven parents. With one model: its scores per node."""
    from checkbench.scan import api
    from checkbench.scan.navigation import NavigationSettings

    settings = NavigationSettings(min_n=min_n, threshold=threshold)
    levels = [facet.strip() for facet in (facets or "").split(",") if facet.strip()]
    nav = api.taxonomy_navigate(
        run_dir, taxonomy, judge=judge_id, settings=settings, pruned=pruned, facets=levels
    )
    from checkbench.scan.navigation_view import navigation_parts

    names = nav.models if model is None else [resolve_model(model, nav.models)]
    for part in navigation_parts(nav, names, top):
        if isinstance(part, Grid):
            printout.grids(part)
        else:
            printout.text(part)
    printout.finish(lambda: nav.model_dump(mode="json"))


def resolve_model(model: str, known: list[str]) -> str:
    """The run's name for `model`, which may also be given as a model spec such as `local`."""
    if model in known:
        return model
    try:
        return backend_name(model)
    except CheckbenchError:
        return model


def pc2_grid(report: PC2Report) -> Grid:
    """Per model: pointwise score with its interval, its counts and the pair outcomes."""
    rows = []
    for model in sorted(set(report.pointwise) | set(report.pairwise)):
        point = report.pointwise.get(model)
        pairs = report.pairwise.get(model, {})
        low, high = (point.ci or (None, None)) if point else (None, None)
        rows.append(
            [
                Cell(model),
                estimate(point.score, low, high) if point else Cell("-"),
                Cell(str(point.n) if point else "-"),
                Cell(str(point.unscored) if point else "-"),
                *(Cell(str(pairs.get(k, "-"))) for k in ("wins", "ties", "losses", "unscored")),
            ]
        )
    headers = ("pointwise", "n", "unscored", "wins", "ties", "losses", "unscored pairs")
    return Grid(
        "PC^2 per model (pointwise 0-100, 95% CI; pairs over both orders)",
        [Column("model", numeric=False), *(Column(header) for header in headers)],
        rows,
    )


def print_pc2(report: PC2Report, printout: Printout) -> None:
    """A PC^2 judgment: criteria made, then per model pointwise scores and pair outcomes, then
    position consistency and agreement with human preferences."""
    printout.text(
        f"[bold]{escape(report.judge)}[/]: criteria for {report.items} items, "
        f"[red]{report.criteria_failed} without a usable answer[/], "
        f"{report.criteria_rescaled} rescaled to 100"
    )
    printout.grids(pc2_grid(report))
    if report.position is not None:
        p = report.position
        printout.text(
            f"position: {p.pairs} pairs in both orders, {p.consistent_wins} consistent wins, "
            f"{p.consistent_ties} consistent ties, {p.inconsistent} inconsistent "
            f"({p.first_position} first-position, {p.second_position} second-position)"
        )
    for variant, accuracy in report.human.items():
        if not accuracy.correct + accuracy.wrong:
            printout.text(
                f"human agreement ({variant}): no pairs the judge ordered ({accuracy.pairs} "
                f"pairs: {accuracy.ties} ties, {accuracy.unscored} unscored)"
            )
            continue
        value = accuracy.accuracy
        shown = estimate_inline(value.value, value.low, value.high, RATE_DIGITS, value.why)
        printout.text(
            f"human agreement ({variant}): accuracy {shown} over {accuracy.pairs} pairs "
            f"({accuracy.correct} correct, {accuracy.wrong} wrong, {accuracy.ties} ties, "
            f"{accuracy.unscored} unscored)"
        )
