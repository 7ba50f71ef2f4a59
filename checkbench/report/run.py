"""What every report section reads: the run's contents, loaded once, and the user's choices."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from checkbench.errors import InputError
from checkbench.report.prices import Price, parse_prices
from checkbench.scan.tree import Taxonomy, load_taxonomy
from checkbench.schema import Item, Response, Verdict
from checkbench.scoring import Scores, UnscoredPolicy, score_responses
from checkbench.store import RunStore


@dataclass(frozen=True)
class ReportOptions:
    """The judge to report (None: every judge), the unscored policy, the price table and the
    capability taxonomy (None: the one stored in the run, if any)."""

    judge: str | None = None
    policy: UnscoredPolicy = "zero"
    prices: dict[str, Price] = field(default_factory=dict)
    taxonomy: Taxonomy | None = None


def report_options(
    judge: str | None = None,
    policy: UnscoredPolicy = "zero",
    prices: Sequence[str] = (),
    taxonomy: str | Path | None = None,
) -> ReportOptions:
    """Options from their command-line spellings: prices "MODEL=INPUT,OUTPUT", a taxonomy
    JSON file; bad ones raise InputError before anything is read or written."""
    if policy not in ("zero", "exclude"):
        raise InputError(f"unscored policy must be 'zero' or 'exclude', got {policy!r}")
    return ReportOptions(
        judge=judge,
        policy=policy,
        prices=parse_prices(prices),
        taxonomy=load_taxonomy(taxonomy) if taxonomy is not None else None,
    )


class RunData:
    """A run store's items, responses and verdicts, read once and shared by the sections."""

    def __init__(self, store: RunStore, options: ReportOptions) -> None:
        self.store = store
        self.options = options
        judges = store.judges()
        if options.judge is not None and options.judge not in judges:
            known = ", ".join(judges) or "none"
            raise InputError(f"no verdicts by judge '{options.judge}' (judges: {known})")
        self.judges: list[str] = [options.judge] if options.judge else judges
        self.items: list[Item] = store.items()
        self.responses: list[Response] = store.responses()
        self.models: list[str] = store.models()
        self.verdicts: dict[str, list[Verdict]] = defaultdict(list)
        for verdict in store.verdicts(options.judge):
            self.verdicts[verdict.judge].append(verdict)

    @cached_property
    def scores(self) -> dict[str, dict[str, Scores]]:
        """judge -> model -> item id -> item score (None = unscored), for every response."""
        return {
            judge: score_responses(self.items, self.responses, self.verdicts[judge])
            for judge in self.judges
        }
