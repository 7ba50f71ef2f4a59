"""What every report section reads: the run's item heads, models, judges and item scores, read
once in columns (item texts, responses and verdicts stay in the store), and the user's choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from checkbench.errors import InputError
from checkbench.llm.models_file import Price, parse_prices
from checkbench.scoring import ItemScores, Scores, UnscoredPolicy, store_scores
from checkbench.store import ItemHead, RunStore
from checkbench.store.labels import model_judges

EMBED_ITEMS = 10_000
"""Most items whose records a report file embeds; past this the file shows the aggregates and
points to `checkbench view`, which reads item records from the store a page at a time."""


@dataclass(frozen=True)
class ReportOptions:
    """The judge to report (None: every judge), the unscored policy, the price table given
    (over the models-file prices the run stored), the capability taxonomy (a SCAN
    `scan.tree.Taxonomy`, loaded by the caller; None: the one stored in the run, if any) and
    the most items a report file embeds."""

    judge: str | None = None
    policy: UnscoredPolicy = "zero"
    prices: dict[str, Price] = field(default_factory=dict)
    taxonomy: Any = None
    embed_items: int = EMBED_ITEMS


def report_options(
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    prices: Sequence[str] = (),
    taxonomy: Any = None,
) -> ReportOptions:
    """Options from their command-line spellings: prices "MODEL=INPUT,OUTPUT" (a bad one
    raises InputError before anything is read or written), and a loaded taxonomy."""
    if policy not in ("zero", "exclude"):
        raise InputError(f"unscored policy must be 'zero' or 'exclude', got {policy!r}")
    return ReportOptions(
        judge=judge,
        policy=policy,
        prices=parse_prices(prices),
        taxonomy=taxonomy,
    )


class RunData:
    """What the sections share: the store, the item heads (ids, tags, checks; no texts), the
    models and judges, and per judge the item scores, counted and read in columns."""

    def __init__(self, store: RunStore, options: ReportOptions) -> None:
        self.store = store
        self.options = options
        judges = store.judges()
        if options.judge is not None and options.judge not in judges:
            known = ", ".join(judges) or "none"
            raise InputError(f"no verdicts by judge '{options.judge}' (judges: {known})")
        self.judges: list[str] = [options.judge] if options.judge else model_judges(judges)
        self.items: list[ItemHead] = list(store.item_heads())
        self.models: list[str] = store.models()

    @cached_property
    def columns(self) -> dict[str, dict[str, ItemScores]]:
        """judge -> model -> item scores in columns, for every response."""
        return {judge: store_scores(self.store, judge) for judge in self.judges}

    @cached_property
    def scores(self) -> dict[str, dict[str, Scores]]:
        """judge -> model -> item id -> item score (None = unscored), for every response."""
        ids = [item.id for item in self.items]
        return {
            judge: {model: scores.as_scores(ids) for model, scores in by_model.items()}
            for judge, by_model in self.columns.items()
        }

    @cached_property
    def prices(self) -> dict[str, Price]:
        """model -> price: the models file's as the run stored it, the options' overriding."""
        stored = {name: Price.model_validate(p) for name, p in self.store.prices().items()}
        return {**stored, **self.options.prices}

    @cached_property
    def verdict_counts(self) -> dict[str, tuple[int, int]]:
        """judge -> (verdicts, unscored ones)."""
        return {judge: self.store.verdict_counts(judge) for judge in self.judges}

    @cached_property
    def response_counts(self) -> dict[str, tuple[int, int]]:
        """model -> (responses, failed ones)."""
        return self.store.response_counts()
