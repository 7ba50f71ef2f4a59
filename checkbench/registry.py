"""The protocols checkbench knows, and what each one brings to the shared commands.

`PROTOCOLS` maps a protocol's name (its package and its command, `checkbench fbbench ...`) to
the dotted path of the module that defines its `Protocol` object as `PROTOCOL`. The module is
imported on first use (as lm-evaluation-harness registers its models), so that this layer
imports no protocol; a protocol's `protocol` module itself stays light: every hook imports
the protocol's modules when it is called.

The shared layers ask the registry instead of listing protocols: `benchmarks` for the file
formats, `api` for the names it re-exports, the CLI root for the sub-apps and the old command
names, the report for its sections, a run for its scorer. Adding a protocol is one package
with a `protocol` module and one line in `PROTOCOLS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

PROTOCOLS: dict[str, str] = {
    "fbbench": "checkbench.fbbench.protocol",
    "convbench": "checkbench.convbench.protocol",
    "ifrewardbench": "checkbench.ifrewardbench.protocol",
    "scan": "checkbench.scan.protocol",
}
"""Protocol name -> the module whose `PROTOCOL` describes it, in the order a run's scorer
and a report's leaderboards are looked for."""


@dataclass(frozen=True)
class BenchmarkFormat:
    """A benchmark file format a protocol loads, as `--format` names it."""

    name: str
    fits: Callable[[Mapping[str, Any]], bool]
    """Whether the file's first record is in this format (`--format auto`)."""
    load: Callable[[Path], Iterable[Any]]
    """The file's Items, each validated (an InputError names the bad record)."""


@dataclass(frozen=True)
class Alias:
    """An old command name kept for one version: its words are replaced by the new ones (and
    its renamed options by theirs), with a note on stderr."""

    old: str
    """The old command words, e.g. "import fb-bench-judgments"."""
    new: str
    """The command words that replace them, e.g. "fbbench import"."""
    options: Mapping[str, str] = field(default_factory=dict)
    """Renamed options: old flag -> new flag."""

    def note(self) -> str:
        """The one line printed when the old name is used."""
        return (
            f"note: `checkbench {self.old}` is now `checkbench {self.new}`; "
            "the old name goes in the next version"
        )


@dataclass(frozen=True)
class RunScorer:
    """How `run` scores a run whose items are this protocol's, and how the CLI shows it."""

    name: str
    """As `run --protocol` takes it, e.g. "fb-bench"."""
    fits: Callable[[Any], bool]
    """Whether a run store's items are scored by this protocol (`--protocol auto`)."""
    score: Callable[..., Any]
    """(store, judge, settings=None, *, checklists=None, headline=False) -> the scores of
    `judge`'s verdicts in the run store, by the `scoring.ScoringSettings` given (None: the
    protocol's defaults); `checklists` (`scoring.refined`'s, the refined items by their kept
    checks) over `settings.checklist`; with `headline`, without what only the tables show,
    e.g. breakdowns."""
    show: Callable[[Any], None]
    """Prints the scores in the terminal as `run` shows them: a line naming the protocol,
    then its tables."""
    command: str
    """The command that shows the scores again from the run directory, e.g. "leaderboard"."""
    paired: Callable[[Any], Any] | None = None
    """(store) -> the `scoring.ScoreLayout` of how its score weighs the run's items, which a
    paired comparison (`checkbench compare`) follows; None: the mean of item scores."""
    grids: Callable[[Any], list[Any]] | None = None
    """(scores) -> the tables `show` prints, as `console.tables.Grid`s, for `run
    --table-format markdown|csv`; None: the scores only in the JSON."""


@dataclass(frozen=True)
class ScoreStrata:
    """How a protocol's score averages item scores: the mean of the means of strata. The
    commands that rank models on a subset of items (`scan navigate`) follow it, and a sampled
    slice keeps the strata in proportion."""

    ranked_by: str
    """What the ranking is by, as the table and the JSON say it."""
    fits: Callable[[Sequence[Any]], bool]
    """Whether these items are the protocol's."""
    stratum: Callable[[Mapping[str, Sequence[str]]], str | None]
    """An item's stratum by its tags, e.g. FB-Bench's (scenario, task) group; None when the
    item is not the protocol's."""


Section = Callable[[Any], Any]
"""A report section: the run's `RunData` -> JSON-able data; None leaves the part out."""


@dataclass(frozen=True)
class Protocol:
    """What one protocol brings to the shared layers; every hook is optional."""

    name: str
    """Its package under checkbench and its command: `checkbench NAME ...`."""
    title: str
    """How the docs and the terminal name it, e.g. "FB-Bench"."""
    formats: tuple[BenchmarkFormat, ...] = ()
    cli: Callable[[], Any] | None = None
    """Returns its Typer sub-app (with its help), mounted as `checkbench NAME`."""
    aliases: tuple[Alias, ...] = ()
    api: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """What `checkbench.api` re-exports from it: module -> names."""
    sections: Mapping[str, Section] = field(default_factory=dict)
    """Report sections of its own: the page data's key -> the section."""
    leaderboards: Section | None = None
    """The report's leaderboards for a run it claims (a list, maybe empty); None when the run
    is not its own, and the report shows the mean item score per model."""
    judge_records: Callable[[], Sequence[Any]] | None = None
    """The record kinds (`store.RecordKind`) of judge-quality results it stores per judge,
    shown in the report's Judges section beside calibration and agreement."""
    scorer: RunScorer | None = None
    score_strata: ScoreStrata | None = None


@cache
def protocol(name: str) -> Protocol:
    """The registered protocol `name`, its module imported on first use."""
    try:
        path = PROTOCOLS[name]
    except KeyError:
        raise KeyError(f"no protocol {name!r} (known: {', '.join(PROTOCOLS)})") from None
    found = import_module(path).PROTOCOL
    if not isinstance(found, Protocol) or found.name != name:
        raise TypeError(f"{path}.PROTOCOL is not the Protocol named {name!r}")
    return found


def protocols() -> list[Protocol]:
    """Every registered protocol, in the order of `PROTOCOLS`."""
    return [protocol(name) for name in PROTOCOLS]


def benchmark_formats() -> dict[str, BenchmarkFormat]:
    """The protocols' benchmark file formats by name."""
    return {fmt.name: fmt for p in protocols() for fmt in p.formats}


def aliases() -> list[Alias]:
    """Every protocol's old command names."""
    return [alias for p in protocols() for alias in p.aliases]


def run_scorers() -> dict[str, RunScorer]:
    """The protocols' run scorers by name, in registry order."""
    return {p.scorer.name: p.scorer for p in protocols() if p.scorer is not None}


def run_scorer(store: Any, name: str = "auto") -> RunScorer:
    """The scorer named `name`, or with "auto" the first whose protocol claims the store's
    items."""
    scorers = run_scorers()
    if name != "auto":
        return scorers[name]
    for scorer in scorers.values():
        if scorer.fits(store):
            return scorer
    raise LookupError("no protocol scores this run")


def score_strata(items: Sequence[Any]) -> ScoreStrata | None:
    """The strata of the first protocol whose score these items are ranked by, or None (the
    plain mean of items)."""
    for p in protocols():
        if p.score_strata is not None and p.score_strata.fits(items):
            return p.score_strata
    return None


def stratum(tags: Mapping[str, Sequence[str]]) -> str:
    """The stratum of an item's tags: the first protocol's that places it ("" when none)."""
    for p in protocols():
        if p.score_strata is not None and (found := p.score_strata.stratum(tags)) is not None:
            return found
    return ""
