"""Several conversation logs read as one stream: a limit, duplicate ids, per-file counts.

The stream is deterministic (files in the order given, records in file order), so the build
can read it twice: once to select and cluster, once to fetch the selected conversations,
without holding the whole corpus in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from checkbench.convbench.ingest import (
    Conversation,
    Format,
    IngestStats,
    ParseRows,
    iter_conversations,
)
from checkbench.errors import InputError
from checkbench.inputs import input_file

DUPLICATE = "duplicate conversation id"


@dataclass(frozen=True)
class Rejection:
    """A record the build could not use: where it is, the countable reason, the full error."""

    where: str
    reason: str
    error: str


@dataclass
class LogTally:
    """What reading the logs saw: records read and kept per file, and every rejection."""

    read: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    rejections: list[Rejection] = field(default_factory=list)
    limit_reached: bool = False

    @property
    def total_read(self) -> int:
        return sum(self.read.values())

    @property
    def total_kept(self) -> int:
        return sum(self.kept.values())

    def reasons(self) -> Counter[str]:
        """Rejections counted by reason."""
        return Counter(r.reason for r in self.rejections)


def check_logs(paths: Sequence[str | Path]) -> list[Path]:
    """The log paths, every one an existing file (checked before anything is read)."""
    if not paths:
        raise InputError("no conversation logs given")
    resolved = []
    for path in paths:
        resolved.append(input_file(path))
    return resolved


def stream_logs(
    paths: Sequence[Path],
    fmt: Format,
    *,
    strict: bool,
    limit: int | None,
    tally: LogTally | None = None,
    parse: ParseRows | None = None,
) -> Iterator[Conversation]:
    """Conversations of every log in order, each id once, at most `limit` from each log.

    A later conversation with an id already seen is a rejection (or, with `strict`, an error):
    ids key every stage record of the build. `parse` parses the records (`iter_conversations`).
    """
    tally = tally if tally is not None else LogTally()
    seen: set[str] = set()
    for path in paths:
        for conversation in _read_file(path, fmt, strict, tally, parse):
            if conversation.id in seen:
                error = InputError(
                    f"{DUPLICATE} {conversation.id!r}",
                    path=path,
                    line=conversation.source.line,
                    field="id",
                )
                if strict:
                    raise error
                tally.rejections.append(Rejection(f"{path}:{error.line}", DUPLICATE, str(error)))
                continue
            seen.add(conversation.id)
            tally.kept[str(path)] += 1
            yield conversation
            if limit is not None and tally.kept[str(path)] >= limit:
                tally.limit_reached = True
                break


def _read_file(
    path: Path, fmt: Format, strict: bool, tally: LogTally, parse: ParseRows | None
) -> Iterator[Conversation]:
    """One log's conversations; every record read is counted, every skipped one recorded."""
    name = str(path)
    stats = IngestStats()
    counted: Counter[str] = Counter()

    def skipped(error: InputError) -> None:
        # The stats have just counted this record's reason: it is the one that grew.
        reason = next(iter(stats.reasons - counted))
        counted[reason] += 1
        tally.read[name] += 1
        tally.rejections.append(Rejection(f"{error.path}:{error.line}", reason, str(error)))

    conversations = iter_conversations(
        path, fmt, strict=strict, on_error=skipped, stats=stats, parse=parse
    )
    for conversation in conversations:
        tally.read[name] += 1
        yield conversation
