"""Options shared by several commands."""

from __future__ import annotations

from typing import Annotated

import typer

from checkbench.llm import ModelOptions

BaseUrl = Annotated[
    str | None,
    typer.Option(help="OpenAI-compatible endpoint for openai:MODEL (default $OPENAI_BASE_URL)."),
]
ApiKeyEnv = Annotated[
    str, typer.Option(help="Name of the environment variable holding the API key.")
]
Concurrency = Annotated[int, typer.Option(min=1, help="Concurrent requests per HTTP model.")]
JsonMode = Annotated[
    str,
    typer.Option(
        help="How to ask HTTP models for JSON: 'schema' (json_schema, falls back to json_object "
        "when refused) or 'object'."
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
Format = Annotated[str, typer.Option("--format", help="Benchmark format: auto, native, fb-bench.")]


def model_options(
    base_url: str | None, api_key_env: str, concurrency: int, json_mode: str
) -> ModelOptions:
    """ModelOptions from the shared command-line flags."""
    if json_mode not in ("schema", "object"):
        raise typer.BadParameter("must be 'schema' or 'object'", param_hint="--json-mode")
    return ModelOptions(
        base_url=base_url,
        api_key_env=api_key_env,
        concurrency=concurrency,
        json_mode=json_mode,  # type: ignore[arg-type]
    )
