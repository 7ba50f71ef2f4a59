"""`checkbench taxonomy ...`: SCAN capability taxonomies, tagging, RealMix, PC^2, navigation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from checkbench import api
from checkbench.choices import PC2Mode, TaxonomyFormat
from checkbench.cli import app
from checkbench.cli.judges_render import print_pc2
from checkbench.console import Group
from checkbench.console.options import (
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    AsJson,
    JudgeModel,
    Model,
    with_model_options,
)
from checkbench.console.render import (
    console,
    exit_if_all_failed,
    print_stages,
)
from checkbench.llm import ModelOptions
from checkbench.steps.progress import RichProgress

if TYPE_CHECKING:
    from checkbench.scan.builder import TaxBuilderReport
    from checkbench.scan.tree import Taxonomy

taxonomy_app = typer.Typer(
    cls=Group,
    help="Capability taxonomies (SCAN): build, tag, synthesize, judge with PC^2, navigate.",
    no_args_is_help=True,
)
app.add_typer(taxonomy_app, name="taxonomy")

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


@taxonomy_app.command()
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


@taxonomy_app.command("diff")
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


@taxonomy_app.command()
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


@taxonomy_app.command()
@with_model_options
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
) -> None:
    """Grow a capability taxonomy from real queries (TaxBuilder); rerunning resumes."""
    settings = api.TaxBuilderSettings(
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
    console.print(
        f"{report.queries} queries, {report.tags} capabilities "
        f"({report.extraction_failed} extractions without a usable answer); "
        f"insert: {_outcomes(report.insert)}; refine: {_outcomes(report.refine)}; "
        f"{report.nodes_before_pruning} nodes before pruning, {report.nodes} after "
        f"({report.leaves} leaves, depth {report.depth})",
        highlight=False,
    )
    console.print(_build_steps(report), highlight=False)
    for cause, problem in report.examples.items():
        console.print(f"  {escape(cause)}: e.g. {escape(problem)}", highlight=False)
    if not report.grown:
        console.print(_not_grown(report), highlight=False)
    console.print(f"taxonomy written to [bold]{taxonomy_out}[/]")
    print_stages(out, [result.summary])
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


@taxonomy_app.command()
@with_model_options
def tag(
    bench: Annotated[Path, typer.Argument(help="Benchmark items (JSONL).")],
    taxonomy: TaxonomyOption,
    out: RunDir,
    bench_out: BenchOut,
    model: Model = DEFAULT_MODEL,
    max_tags: Annotated[int, typer.Option(min=1, help="Taxonomy nodes per item.")] = 4,
    reason_chars: ReasonChars = 160,
    options: ModelOptions = DEFAULT_OPTIONS,
) -> None:
    """Give every item a domain and hierarchical taxonomy tags."""
    settings = api.TagSettings(max_tags=max_tags, reason_chars=reason_chars)
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
    console.print(
        f"{report.tagged} of {report.items} items tagged ({report.nothing_fits} fit no node "
        f"below their domain); [red]{report.domain_failed + report.tags_failed} without a "
        "usable answer[/]; "
        f"domains: {escape(_tally(report.domains))}; written to [bold]{bench_out}[/]",
        highlight=False,
    )
    print_stages(out, [result.summary])
    exit_if_all_failed([result.summary])


@taxonomy_app.command()
@with_model_options
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
) -> None:
    """RealMix: synthesize and quality-filter queries until every leaf has enough items."""
    settings = api.MixSettings(
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
    console.print(
        f"{len(result.added)} queries added in {report.rounds} "
        f"round{'' if report.rounds == 1 else 's'} "
        f"({escape(_outcomes(report.outcomes))}); "
        f"{len(report.short_after)} of {report.leaves} leaves still short, "
        f"{len(report.no_reference)} without any reference; written to [bold]{bench_out}[/]",
        highlight=False,
    )
    print_stages(out, [result.summary])
    exit_if_all_failed([result.summary])


@taxonomy_app.command()
@with_model_options
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
    as_json: AsJson = False,
    options: ModelOptions = DEFAULT_OPTIONS,
) -> None:
    """Judge the run's responses with PC^2: criteria derived by comparing auxiliary answers."""
    settings = api.PC2Settings(
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
    if as_json:
        print(result.report.model_dump_json(indent=2))
    else:
        print_pc2(result.report)
        print_stages(run_dir, [result.summary])
    exit_if_all_failed([result.summary])
