"""The models file (checkbench.toml): named models, each with its own endpoint and settings.

    [models.qwen-local]
    model = "Qwen/Qwen2.5-7B-Instruct"
    base_url = "http://localhost:8000/v1"      # or base_urls = [...]: replicas of one model
    concurrency = 32                           # per endpoint, to start with
    max_concurrency = 128                      # how high the adaptive limit may grow
    price = { input = 0.15, output = 0.60 }    # USD per million tokens, kept by the run
    endpoint_name = "qwen-lab"                 # optional: identity by this name, not the URL

Every mistake is reported as one located line: file, line, field.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from checkbench.errors import InputError
from checkbench.inputs import input_file, read_input_text
from checkbench.jsonl import check_depth, too_deep

DEFAULT_MODELS_FILE = "checkbench.toml"
JsonModeName = Literal["schema", "object"]
BaseUrl = Annotated[str, Field(pattern=r"^https?://[^/?#\s]+")]


BATCH_DISCOUNT = 0.5
"""The share of the price batched calls are spared (OpenAI's Batch API: half)."""


class TokenCounts(Protocol):
    """The token accounting a price bills (a store's usage row)."""

    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def batched_prompt_tokens(self) -> int: ...
    @property
    def batched_completion_tokens(self) -> int: ...


class Price(BaseModel):
    """USD per million prompt (input) and completion (output) tokens; batched calls cost
    `1 - batch_discount` of it."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    batch_discount: float = Field(default=BATCH_DISCOUNT, ge=0, le=1)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6

    def billed(self, usage: TokenCounts) -> float:
        """What the calls of one accounting row cost, batched ones at the batch price."""
        batched = self.cost(usage.batched_prompt_tokens, usage.batched_completion_tokens)
        return self.cost(usage.prompt_tokens, usage.completion_tokens) - (
            self.batch_discount * batched
        )


def parse_price(spec: str) -> tuple[str, Price]:
    """`MODEL=INPUT,OUTPUT[,BATCH_DISCOUNT]`, e.g. `openai:gpt-4o=2.5,10` (batched calls at half
    price) or `openai:gpt-4o=2.5,10,0.4`; the model is what the run calls it."""
    model, sep, amounts = spec.rpartition("=")
    parts = amounts.split(",")
    if sep and model.strip() and len(parts) in (2, 3):
        try:
            fields = dict(zip(("input", "output", "batch_discount"), parts, strict=False))
            return model.strip(), Price.model_validate(fields)
        except ValidationError:
            pass
    raise InputError(
        "expected MODEL=INPUT,OUTPUT[,BATCH_DISCOUNT] in USD per million tokens and a share of "
        f"0 to 1 (e.g. openai:gpt-4o=2.5,10), got {spec!r}",
        field="--price",
    )


def parse_prices(specs: Iterable[str]) -> dict[str, Price]:
    """The price table of several `--price` options; a model priced twice is an error."""
    table: dict[str, Price] = {}
    for spec in specs:
        model, price = parse_price(spec)
        if model in table:
            raise InputError(f"model '{model}' is priced twice", field="--price")
        table[model] = price
    return table


class Sampling(BaseModel):
    """A model's default sampling; part of its identity in the store and the cache."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    seed: int | None = None
    max_tokens: int | None = Field(default=None, ge=1)


class ModelEntry(Sampling):
    """One named model of the models file."""

    provider: Literal["openai", "local"] = "openai"
    model: str | None = Field(default=None, min_length=1)
    """The endpoint's model id (openai) or a GGUF path (local; default: the embedded model)."""
    base_url: BaseUrl | None = None
    base_urls: list[BaseUrl] | None = Field(default=None, min_length=1)
    """Replicas serving the same model (vLLM, SGLang); calls go to the least loaded one."""
    endpoint_name: str | None = Field(default=None, min_length=1, max_length=200)
    """A stable name for the endpoint, standing for its URL in the model's identity: a server
    that comes back at another address (a replay judge on a fresh port, a moved deployment)
    is the same model to the run and its cache, so a rerun resumes."""
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    concurrency: int | None = Field(default=None, ge=1)
    max_concurrency: int | None = Field(default=None, ge=1)
    context_length: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)
    retries: int | None = Field(default=None, ge=0)
    json_mode: JsonModeName | None = None
    batch: bool | None = None
    """Ask this model through its provider's Batch API (None: as the command's --batch says)."""
    price: Price | None = None
    max_answer_bytes: int | None = Field(default=None, ge=1)
    """The longest answer (and response body, less its envelope) this model may send."""
    deadline: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """Seconds one call to this model may take over all its attempts."""

    @field_validator("base_urls")
    @classmethod
    def _replicas(cls, urls: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if urls is not None and info.data.get("base_url") is not None:
            raise ValueError("give base_url (one endpoint) or base_urls (replicas), not both")
        if urls is not None and len({url.rstrip("/") for url in urls}) < len(urls):
            raise ValueError("a replica is listed twice")
        return urls

    def sampling(self) -> Sampling:
        return Sampling(
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.seed,
            max_tokens=self.max_tokens,
        )


class ModelsFile(BaseModel):
    """The whole file: models by alias."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: dict[str, ModelEntry] = Field(default_factory=dict)


def _line_of(text: str, alias: str | None, field: str | None) -> int | None:
    """The line of `field` inside `[models.ALIAS]` (or of the header itself), 1-based."""
    lines = text.splitlines()
    start = 0
    if alias is not None:
        header = re.compile(rf"^\s*\[\s*models\s*\.\s*[\"']?{re.escape(alias)}[\"']?\s*[\].]")
        found = [n for n, line in enumerate(lines) if header.match(line)]
        if not found:
            return None
        start = found[0]
        if field is None:
            return start + 1
    if field is not None:
        key = re.compile(rf"^\s*[\"']?{re.escape(field)}[\"']?\s*=")
        for n in range(start, len(lines)):
            if n > start and alias is not None and lines[n].lstrip().startswith("[models."):
                break
            if key.match(lines[n]):
                return n + 1
    return start + 1 if alias is not None else None


def load_models_file(path: str | Path) -> dict[str, ModelEntry]:
    """The models a file names, by alias; a bad file raises one located InputError."""
    path = Path(path)
    text = read_input_text(path)
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+)", str(exc))
        line = int(at.group(1)) if at else None
        message = str(exc).split(" (at ")[0]
        raise InputError(f"not valid TOML: {message}", path=path, line=line) from None
    except RecursionError:
        raise InputError(f"not valid TOML: {too_deep()}", path=path) from None
    check_depth(data, text, path)
    try:
        return ModelsFile.model_validate(data).models
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [str(part) for part in error["loc"]]
        alias = loc[1] if len(loc) > 1 and loc[0] == "models" else None
        field = ".".join(loc[2:]) or None if alias else ".".join(loc) or None
        top = loc[2] if len(loc) > 2 else None
        line = _line_of(text, alias, top)
        where = f"models.{alias}" + (f".{field}" if field else "") if alias else field
        raise InputError(error["msg"], path=path, line=line, field=where) from None


def find_models_file(explicit: str | Path | None) -> Path | None:
    """`explicit` (which must exist), else ./checkbench.toml when there is one."""
    if explicit is not None:
        return input_file(explicit)
    default = Path(DEFAULT_MODELS_FILE)
    return default if default.is_file() else None
