"""The price table given on the command line: USD per million input and output tokens."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from checkbench.errors import InputError


@dataclass(frozen=True)
class Price:
    """USD per million prompt (input) and completion (output) tokens."""

    input: float
    output: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6


def _amount(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(text)
    return value


def parse_price(spec: str) -> tuple[str, Price]:
    """`MODEL=INPUT,OUTPUT`, e.g. `openai:gpt-4o=2.5,10`; the model is what the run calls it."""
    model, sep, amounts = spec.rpartition("=")
    parts = amounts.split(",")
    try:
        if not sep or not model.strip() or len(parts) != 2:
            raise ValueError(spec)
        return model.strip(), Price(_amount(parts[0]), _amount(parts[1]))
    except ValueError:
        raise InputError(
            f"expected MODEL=INPUT,OUTPUT in USD per million tokens "
            f"(e.g. openai:gpt-4o=2.5,10), got {spec!r}",
            field="--price",
        ) from None


def parse_prices(specs: Iterable[str]) -> dict[str, Price]:
    """The price table of several `--price` options; a model priced twice is an error."""
    table: dict[str, Price] = {}
    for spec in specs:
        model, price = parse_price(spec)
        if model in table:
            raise InputError(f"model '{model}' is priced twice", field="--price")
        table[model] = price
    return table
