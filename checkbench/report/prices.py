"""The price table given on the command line: USD per million input and output tokens, and
the share of it that batched calls are spared (OpenAI's Batch API: half)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from checkbench.errors import InputError
from checkbench.store import UsageRow

BATCH_DISCOUNT = 0.5


@dataclass(frozen=True)
class Price:
    """USD per million prompt (input) and completion (output) tokens; batched calls cost
    `1 - batch_discount` of it."""

    input: float
    output: float
    batch_discount: float = BATCH_DISCOUNT

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6

    def billed(self, row: UsageRow) -> float:
        """What the calls of one accounting row cost, batched ones at the batch price."""
        batched = self.cost(row.batched_prompt_tokens, row.batched_completion_tokens)
        return self.cost(row.prompt_tokens, row.completion_tokens) - self.batch_discount * batched


def _amount(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(text)
    return value


def parse_price(spec: str) -> tuple[str, Price]:
    """`MODEL=INPUT,OUTPUT[,BATCH_DISCOUNT]`, e.g. `openai:gpt-4o=2.5,10` (batched calls at half
    price) or `openai:gpt-4o=2.5,10,0.4`; the model is what the run calls it."""
    model, sep, amounts = spec.rpartition("=")
    parts = amounts.split(",")
    try:
        if not sep or not model.strip() or len(parts) not in (2, 3):
            raise ValueError(spec)
        discount = _amount(parts[2]) if len(parts) == 3 else BATCH_DISCOUNT
        if discount > 1:
            raise ValueError(spec)
        return model.strip(), Price(_amount(parts[0]), _amount(parts[1]), discount)
    except ValueError:
        raise InputError(
            f"expected MODEL=INPUT,OUTPUT[,BATCH_DISCOUNT] in USD per million tokens and a "
            f"share of 0 to 1 (e.g. openai:gpt-4o=2.5,10), got {spec!r}",
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
