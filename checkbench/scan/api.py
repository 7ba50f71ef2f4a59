"""SCAN capability taxonomies: build one from queries, tag and fill a benchmark with it, judge
with PC^2, and navigate a run's scores node by node."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from checkbench.benchmarks import load_items
from checkbench.errors import InputError
from checkbench.evaluation.runs import judged_run, open_backends, run_stage
from checkbench.inputs import output_dir, output_file
from checkbench.jsonl import write_jsonl
from checkbench.llm import ModelOptions, open_backend
from checkbench.scan.builder import TaxBuilderSettings, TaxBuildResult, build_taxonomy
from checkbench.scan.domains import seed_taxonomy
from checkbench.scan.facets import facet_taxonomy
from checkbench.scan.formats import TaxonomyFormat
from checkbench.scan.navigation import (
    Navigation,
    NavigationSettings,
    navigate,
    navigate_items,
    protocol_ranking,
)
from checkbench.scan.pc2 import PC2Result, PC2Settings, load_preferences, pc2_evaluate
from checkbench.scan.realmix import MixResult, MixSettings, realmix
from checkbench.scan.tagging import TagResult, TagSettings, check_tasks, tag_items
from checkbench.scan.tree import load_taxonomy, save_taxonomy
from checkbench.schema import Item
from checkbench.scoring import score_responses
from checkbench.steps.progress import ProgressSink
from checkbench.steps.stage import RunTally
from checkbench.store import RunStore

T = TypeVar("T")
Tallied = TypeVar("Tallied", TaxBuildResult, TagResult, MixResult, PC2Result)


def _tallied(store: RunStore, result: Tallied) -> Tallied:
    """The stage's result with what the store says of its calls (what the CLI prints)."""
    return replace(result, tally=RunTally.read(store, [result.summary]))


def _with_model(
    run_dir: str | Path,
    model: str,
    options: ModelOptions | None,
    stage: Callable[..., Awaitable[Tallied]],
    *args: Any,
    **kwargs: Any,
) -> Tallied:
    """Open `model` and run `stage(store, backend, *args, **kwargs)` over the run store; its
    result with the tally of its calls."""
    backend = open_backend(model, options)
    with RunStore(run_dir) as store:
        return _tallied(store, run_stage(store, [backend], stage, backend, *args, **kwargs))


def taxonomy_build(
    queries: str | Path,
    run_dir: str | Path,
    taxonomy_out: str | Path,
    *,
    model: str = "local",
    seed: str | Path | None = None,
    settings: TaxBuilderSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
    taxonomy_format: TaxonomyFormat = "checkbench",
) -> TaxBuildResult:
    """Grow a capability taxonomy from the queries' capabilities (TaxBuilder), starting from
    `seed` (default: the seven SCAN domains), and write it pruned, in checkbench's format or
    SCAN's (names only); rerunning resumes."""
    output_dir(run_dir)
    output_file(taxonomy_out)
    items = load_items(queries)
    start = load_taxonomy(seed) if seed is not None else seed_taxonomy()
    result = _with_model(
        run_dir,
        model,
        options,
        build_taxonomy,
        items,
        seed=start,
        settings=settings,
        progress=progress,
    )
    save_taxonomy(result.taxonomy, taxonomy_out, taxonomy_format)
    return result


Rewritten = TypeVar("Rewritten", TagResult, MixResult)


def _rewrite_bench(
    stage: Callable[..., Awaitable[Rewritten]],
    bench: str | Path,
    taxonomy: str | Path,
    run_dir: str | Path,
    bench_out: str | Path,
    model: str,
    settings: TagSettings | MixSettings | None,
    options: ModelOptions | None,
    progress: ProgressSink | None,
    check: Callable[[list[Item], str | Path], None] | None = None,
) -> Rewritten:
    """Run a stage that turns a benchmark's items into new ones under a taxonomy; write them.
    `check(items, bench)` refuses bad items before anything is written."""
    output_dir(run_dir)
    output_file(bench_out)
    items, tree = load_items(bench), load_taxonomy(taxonomy)
    if check is not None:
        check(items, bench)
    result = _with_model(
        run_dir, model, options, stage, items, tree, settings=settings, progress=progress
    )
    write_jsonl(bench_out, result.items)
    return result


def taxonomy_tag(
    bench: str | Path,
    taxonomy: str | Path,
    run_dir: str | Path,
    bench_out: str | Path,
    *,
    model: str = "local",
    settings: TagSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> TagResult:
    """Give every item a domain and taxonomy tags; write the tagged benchmark. An item whose
    task (the user turns `settings.turns` names) is blank is refused before anything runs."""
    settings = settings or TagSettings()
    args = (bench, taxonomy, run_dir, bench_out, model, settings, options, progress)
    return _rewrite_bench(tag_items, *args, check=partial(check_tasks, settings=settings))


def taxonomy_synthesize(
    tagged: str | Path,
    taxonomy: str | Path,
    run_dir: str | Path,
    bench_out: str | Path,
    *,
    model: str = "local",
    settings: MixSettings | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> MixResult:
    """RealMix: add quality-filtered synthetic queries to every leaf with too few items; write
    the input items followed by the new ones."""
    args = (tagged, taxonomy, run_dir, bench_out, model, settings, options, progress)
    return _rewrite_bench(realmix, *args)


def taxonomy_pc2(
    run_dir: str | Path,
    judge_model: str,
    aux_models: Sequence[str],
    *,
    settings: PC2Settings | None = None,
    human: str | Path | None = None,
    options: ModelOptions | None = None,
    progress: ProgressSink | None = None,
) -> PC2Result:
    """Grade the run's responses with the PC^2 judge (criteria from auxiliary answers),
    pointwise and/or pairwise, and measure agreement with human preferences when given."""
    if not aux_models:
        raise InputError("give at least one auxiliary model (--aux)")
    if len(set(aux_models)) != len(aux_models):
        raise InputError("each auxiliary model may be given once", field="aux")
    with RunStore.existing(run_dir) as store:
        preferences = load_preferences(human, store) if human is not None else []
        judge_backend = open_backend(judge_model, options)
        aux = open_backends(aux_models, options)
        result = run_stage(
            store,
            [judge_backend, *aux],
            pc2_evaluate,
            judge_backend,
            aux,
            settings=settings,
            preferences=preferences,
            progress=progress,
        )
        return _tallied(store, result)


def taxonomy_navigate(
    run_dir: str | Path,
    taxonomy: str | Path | None = None,
    *,
    judge: str | None = None,
    settings: NavigationSettings | None = None,
    pruned: bool = True,
    facets: Sequence[str] = (),
) -> Navigation:
    """Per taxonomy node, every model's score and rank from the run's checklist verdicts (of
    the stored judge id `judge`, default the run's only judge), and each model's strengths,
    weaknesses and unstable parents (unscored items left out). The hierarchy is a taxonomy
    file, or the values of tag `facets` the items carry (e.g. ("task", "subtask")). Models rank
    by the score of the protocol whose items these are (FB-Bench's mean of group means), else
    by the mean of items; the result's `ranked_by` says which."""
    if (taxonomy is None) == (not facets):
        raise InputError("give a taxonomy file or tag facets to navigate by (one of the two)")
    tree = load_taxonomy(taxonomy) if taxonomy is not None else None
    _, items, responses, verdicts = judged_run(run_dir, judge)
    scores = score_responses(items, responses, verdicts)
    by = protocol_ranking(items)
    if tree is not None:
        return navigate_items(items, scores, tree, settings=settings, pruned=pruned, **by)
    by_facets, tags = facet_taxonomy(items, facets)
    return navigate(scores, tags, taxonomy=by_facets, settings=settings, **by)
