"""`checkbench generate`: candidate models answer a benchmark."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from checkbench import api
from checkbench.cli import app
from checkbench.console.options import (
    AUTO_FORMAT,
    DEFAULT_MODEL,
    DEFAULT_OPTIONS,
    TABLE,
    ExecutorChoice,
    Format,
    Models,
    RayAddress,
    Samples,
    Temperature,
    with_cost_limit,
    with_model_options,
    with_slice,
    with_table_output,
)
from checkbench.console.output import Printout
from checkbench.console.render import exit_if_all_failed, print_tally
from checkbench.distributed import executor_named
from checkbench.llm import ModelOptions
from checkbench.steps.budget import NO_LIMIT, CostLimit
from checkbench.steps.progress import RichProgress
from checkbench.steps.slices import WHOLE_SLICE, Slice


@app.command()
@with_model_options
@with_slice
@with_cost_limit
@with_table_output
def generate(
    bench: Annotated[
        Path, typer.Argument(help="Benchmark file (JSONL of Items, or FB-Bench JSON).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory.")],
    model: Models = None,
    format_: Format = AUTO_FORMAT,
    temperature: Temperature = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Override the answer length.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Sampling seed passed to the models.")] = None,
    samples: Samples = 1,
    executor: ExecutorChoice = "local",
    ray_address: RayAddress = None,
    options: ModelOptions = DEFAULT_OPTIONS,
    slice_: Slice = WHOLE_SLICE,
    cost: CostLimit = NO_LIMIT,
    printout: Printout = TABLE,
) -> None:
    """Run one or more candidate models over the items of BENCH (of a slice of it) into a run
    directory; exits 3 at the cost limit."""
    settings = api.GenerationSettings(
        temperature=temperature, max_tokens=max_tokens, seed=seed, samples=samples
    )
    with RichProgress() as progress:
        result = api.generate(
            bench,
            model or [DEFAULT_MODEL],
            out,
            fmt=format_.value,
            settings=settings,
            options=options,
            progress=progress,
            executor=executor_named(executor, ray_address),
            slice_=slice_,
            cost=cost,
        )
    print_tally([result.stage], result.tally, failures=True, printout=printout)
    printout.finish(lambda: {"stages": [asdict(result.stage)]})
    exit_if_all_failed([result.stage])
