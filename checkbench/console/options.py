"""Options shared by several commands, each defined once.

A choice option is typed by the Literal of the setting it feeds (for benchmark formats, by an
enum of the loaders), so typer checks its value and --help lists the choices. Name the
parameter of a choice option after what it chooses (`unscored_policy`, `judge_mode`,
`format_`): a bad value's one-line error calls it that.

`--judge MODEL` always names a model to run as judge; `--judge-id ID` names a judge whose
verdicts are already stored in the run (the id `checkbench judge` prints, e.g.
`local:SmolLM2-135M-Instruct.Q4_1#logprob`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast, get_type_hints

import typer
from typer import _click

from checkbench import registry
from checkbench.choices import NATIVE_FORMAT, ExecutorName, UnscoredPolicy
from checkbench.choices import JudgeMode as Mode
from checkbench.console.tables import OutputFormat
from checkbench.llm import JsonMode as JsonModeName
from checkbench.llm import ModelOptions

if TYPE_CHECKING:
    from checkbench.console.output import Printout

DEFAULT_MODEL = "local"
SPECS = "an alias of the models file, local, local:/x.gguf, openai:NAME or openai:NAME@URL"

BenchFormat = StrEnum(
    "BenchFormat",
    {name: name for name in ("auto", NATIVE_FORMAT, *registry.benchmark_formats())},
)
"""Benchmark formats: detected from the first record (auto), checkbench's own, or one a
registered protocol loads."""
AUTO_FORMAT = BenchFormat("auto")
Language = Literal["auto", "en", "zh"]
"""Judge prompt languages: the item's own (auto), or forced."""

Model = Annotated[str, typer.Option("--model", "-m", help=f"Model: {SPECS}.")]
Models = Annotated[
    list[str] | None,
    typer.Option(
        "--model", "-m", help=f"Candidate model: {SPECS}; repeat for several (default: local)."
    ),
]
JudgeModel = Annotated[str, typer.Option("--judge", "-j", help=f"Model to run as judge: {SPECS}.")]
Temperature = Annotated[float | None, typer.Option(help="Override the items' temperature.")]
Samples = Annotated[
    int,
    typer.Option(
        min=1,
        help="Answers per item and model, each its own call; an item scores the mean of its "
        "samples. Above 1 needs sampling: a temperature above 0 and no seed.",
    ),
]


def _judge_id_help(default: str) -> str:
    return (
        "A judge stored in the run, by the id `checkbench judge` printed (e.g. "
        f"gpt-4o-2024-08-06, or a model's id and #logprob), whose verdicts to read (default: "
        f"{default})."
    )


JudgeId = Annotated[
    str | None, typer.Option("--judge-id", help=_judge_id_help("the run's only judge"))
]
JudgeIdOrAll = Annotated[str | None, typer.Option("--judge-id", help=_judge_id_help("every judge"))]
JudgeIds = Annotated[
    list[str] | None,
    typer.Option("--judge-id", help=_judge_id_help("every judge") + " Repeat for several."),
]
Unscored = Annotated[
    UnscoredPolicy,
    typer.Option(
        "--unscored",
        help="Items left unscored by the judge count as 0 (zero, as FB-Bench publishes) or are "
        "left out (exclude).",
    ),
]
JudgeMode = Annotated[
    Mode,
    typer.Option(
        "--mode", help="Judge with one JSON verdict per response (text) or P(yes) per check."
    ),
]
JudgeLanguage = Annotated[
    Language, typer.Option("--language", help="Judge prompt language: the item's (auto), en, zh.")
]
ExecutorChoice = Annotated[
    ExecutorName,
    typer.Option(
        "--executor",
        help="Make the model calls here (local) or as Ray Data pipelines on a Ray cluster (ray: "
        "pip install 'checkbench\\[ray]').",  # \\[ escapes rich markup: the help shows [ray]
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="The Ray cluster for --executor ray, e.g. ray://head:10001 (default $RAY_ADDRESS, "
        "else a Ray instance on this machine).",
    ),
]
Format = Annotated[BenchFormat, typer.Option("--format", help="Benchmark format.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]

BaseUrl = Annotated[
    str | None,
    typer.Option(
        help="OpenAI-compatible endpoint for openai:MODEL without its own (default "
        "$OPENAI_BASE_URL)."
    ),
]
ModelsFile = Annotated[
    Path | None,
    typer.Option(
        "--models",
        help="Models file (TOML) naming models with their own endpoints and settings "
        "(default: ./checkbench.toml when present).",
    ),
]
Timeout = Annotated[
    float | None,
    typer.Option(min=0.001, help="Seconds one HTTP attempt may take (default 600)."),
]
Retries = Annotated[
    int | None,
    typer.Option(min=0, help="Retries of a failed attempt that may succeed (default 5)."),
]
ApiKeyEnv = Annotated[
    str, typer.Option(help="Name of the environment variable holding the API key.")
]
Concurrency = Annotated[int, typer.Option(min=1, help="Concurrent requests per HTTP model.")]
JsonMode = Annotated[
    JsonModeName,
    typer.Option(
        help="How to ask HTTP models for JSON: schema (json_schema, falls back to json_object "
        "when refused) or object."
    ),
]

Batch = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Ask HTTP models through their provider's Batch API (OpenAI-compatible: half the "
        "price, answers within 24 h); a rerun picks up the batches already submitted.",
    ),
]
BatchPoll = Annotated[
    float, typer.Option(min=0.001, help="Seconds between status checks of a submitted batch.")
]
MaxAnswerBytes = Annotated[
    int,
    typer.Option(
        min=1,
        help="The longest answer (and response body) a model may send, in bytes; a longer one "
        "fails its call (4194304 bytes: 4 MiB).",
    ),
]
Deadline = Annotated[
    float,
    typer.Option(
        min=0.001,
        help="Seconds one model call may take over all its attempts and waits (30 minutes).",
    ),
]


_ENDPOINT_FLAGS: dict[str, tuple[Any, Any]] = {
    "base_url": (BaseUrl, None),
    "api_key_env": (ApiKeyEnv, "OPENAI_API_KEY"),
    "concurrency": (Concurrency, 8),
    "json_mode": (JsonMode, "schema"),
    "models": (ModelsFile, None),
    "timeout": (Timeout, None),
    "retries": (Retries, None),
    "batch": (Batch, False),
    "batch_poll": (BatchPoll, ModelOptions.batch_poll_s),
    "max_answer_bytes": (MaxAnswerBytes, ModelOptions.max_answer_bytes),
    "deadline": (Deadline, ModelOptions.deadline_s),
}
"""The flags every command that calls models takes: name -> (annotated type, default)."""

C = TypeVar("C", bound=Callable[..., Any])
DEFAULT_OPTIONS = ModelOptions()
"""The `options` default of a command under `with_model_options` (the flags replace it)."""


def with_model_options(command: C) -> C:
    """Give a command the shared endpoint flags, passed to it as one `options: ModelOptions`
    (a models-file entry's own fields win over the flags)."""
    hints = get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    kept = [  # annotations resolved: typer reads them from this signature as they are
        p.replace(annotation=hints.get(name, p.annotation))
        for name, p in signature.parameters.items()
        if name != "options"
    ]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, (kind, default) in _ENDPOINT_FLAGS.items()
    ]

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        flags = {name: kwargs.pop(name) for name in _ENDPOINT_FLAGS}
        options = ModelOptions(
            base_url=flags["base_url"],
            api_key_env=flags["api_key_env"],
            concurrency=flags["concurrency"],
            json_mode=flags["json_mode"],
            models_file=flags["models"],
            timeout_s=flags["timeout"],
            retries=flags["retries"],
            batch=flags["batch"],
            batch_poll_s=flags["batch_poll"],
            max_answer_bytes=flags["max_answer_bytes"],
            deadline_s=flags["deadline"],
        )
        return command(*args, options=options, **kwargs)

    del hints["options"]
    run.__annotations__ = {**hints, **{name: kind for name, (kind, _) in _ENDPOINT_FLAGS.items()}}
    run.__signature__ = signature.replace(parameters=kept + added)
    return cast(C, run)


ReferenceJudge = Annotated[
    str | None,
    typer.Option(
        "--reference-judge",
        help="A judge stored in the run, by its id, whose verdicts are the reference (e.g. "
        "gpt-4o-2024-08-06 after `checkbench fbbench import`).",
    ),
]
ReferenceFile = Annotated[
    Path | None,
    typer.Option(
        "--reference-file",
        help="JSONL of reference verdicts (item_id, model, check_id, passed), e.g. human ones.",
    ),
]
CalibrationName = Annotated[
    str | None,
    typer.Option(
        "--calibration",
        help="Grade with a calibration (its name in the run, or an exported JSON file) and "
        "score the calibrated judge.",
    ),
]


def refuse_judge_and_calibration(
    ctx: typer.Context, judge_id: str | None, calibration: str | None
) -> None:
    """--calibration names the judge to score (the calibrated one): a usage error beside
    --judge-id."""
    if calibration is not None and judge_id is not None:
        raise _click.exceptions.UsageError(
            "--calibration names the judge to score: leave out --judge-id", ctx
        )


def with_flags(
    name: str, flags: dict[str, tuple[Any, Any]], build: Callable[..., Any]
) -> Callable[[C], C]:
    """A decorator giving a command `flags` (name -> (annotated type, default)), passed to it
    as one parameter `name`: `build(**flags)` (an InputError there is a one-line error)."""

    def decorate(command: C) -> C:
        hints = get_type_hints(command, include_extras=True)
        signature = inspect.signature(command)
        kept = [
            p.replace(annotation=hints.get(key, p.annotation))
            for key, p in signature.parameters.items()
            if key != name
        ]
        added = [
            inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
            for key, (kind, default) in flags.items()
        ]

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            built = build(**{key: kwargs.pop(key) for key in flags})
            return command(*args, **{name: built}, **kwargs)

        hints.pop(name, None)
        run.__annotations__ = {**hints, **{key: kind for key, (kind, _) in flags.items()}}
        run.__signature__ = signature.replace(parameters=kept + added)
        return cast(C, run)

    return decorate


Limit = Annotated[
    int | None, typer.Option("--limit", min=0, help="Slice: the first N items (in file order).")
]
SampleSize = Annotated[
    int | None,
    typer.Option(
        "--sample",
        min=0,
        help="Slice: N items drawn with --sample-seed, stratified as the protocol scores "
        "(FB-Bench: by scenario and task).",
    ),
]
SampleSeed = Annotated[int, typer.Option("--sample-seed", help="Seed of --sample.")]
ItemsFile = Annotated[
    Path | None,
    typer.Option(
        "--items", help="Slice: the item ids a file lists (one a line, or JSONL with an id)."
    ),
]
TagFilter = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="Slice: items tagged FACET=VALUE (e.g. task=Coding); repeat: any value of a "
        "facet, every facet.",
    ),
]
SliceModels = Annotated[
    list[str] | None,
    typer.Option("--model", "-m", help="Slice: only this model's responses; repeat for several."),
]
_SLICE_FLAGS: dict[str, tuple[Any, Any]] = {
    "limit": (Limit, None),
    "sample": (SampleSize, None),
    "sample_seed": (SampleSeed, 0),
    "items": (ItemsFile, None),
    "tag": (TagFilter, None),
}


def _slice(**flags: Any) -> Any:
    from checkbench.steps.slices import Slice

    return Slice(
        limit=flags["limit"],
        sample=flags["sample"],
        sample_seed=flags["sample_seed"],
        items_file=flags["items"],
        tags=tuple(flags["tag"] or ()),
        models=tuple(flags.get("model") or ()),
    )


with_slice = with_flags("slice_", _SLICE_FLAGS, _slice)
"""Give a command the slice flags, passed as `slice_: Slice` (see `steps.slices`)."""
with_slice_and_models = with_flags("slice_", {**_SLICE_FLAGS, "model": (SliceModels, None)}, _slice)
"""`with_slice` with `--model` (repeatable) restricting the slice to some models."""

MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        min=0,
        help="Stop before a call could take what the command's models spent in this run "
        "past USD (exit code 3); a rerun with a higher limit resumes. Every model needs a price.",
    ),
]
Prices = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        help="MODEL=INPUT,OUTPUT: a model's price in USD per million tokens, over the models "
        "file's; repeat for several. Kept by the run: the calls table and the report bill "
        "its calls at it.",
    ),
]


def _cost(**flags: Any) -> Any:
    from checkbench.llm.models_file import parse_prices
    from checkbench.steps.budget import CostLimit

    return CostLimit(max_cost=flags["max_cost"], prices=parse_prices(flags["price"] or ()))


with_cost_limit = with_flags("cost", {"max_cost": (MaxCost, None), "price": (Prices, None)}, _cost)
"""Give a command `--max-cost` and `--price`, passed as `cost: CostLimit` (see
`steps.budget`)."""


_FORMAT_HELP = (
    "How to print: tables fitted to the terminal's width (table), Markdown tables, CSV (one "
    "row per cell), or JSON."
)
TableFormat = Annotated[OutputFormat, typer.Option("--format", help=_FORMAT_HELP)]
AsJsonAlias = Annotated[bool, typer.Option("--json", hidden=True, help="Same as --format json.")]


def _output(**flags: Any) -> Any:
    from checkbench.console.output import Printout

    return Printout("json" if flags["as_json"] else flags["table_format"])  # --json: json


TABLE: Printout = cast("Printout", None)
"""The `printout` default of a command under `with_output` (the flags replace it)."""
with_output = with_flags(
    "printout", {"table_format": (TableFormat, "table"), "as_json": (AsJsonAlias, False)}, _output
)
"""Give a table command `--format table|markdown|csv|json` (and `--json`, hidden, the same as
`--format json`), passed to it as `printout: Printout` (see `console.output`)."""

RenamedTableFormat = Annotated[
    OutputFormat,
    typer.Option(
        "--table-format",
        help=_FORMAT_HELP + " (Not --format: that names the format of the input.)",
    ),
]
with_table_output = with_flags(
    "printout",
    {"table_format": (RenamedTableFormat, "table"), "as_json": (AsJsonAlias, False)},
    _output,
)
"""`with_output` for a command whose `--format` names the format of its input: the option is
`--table-format`."""
