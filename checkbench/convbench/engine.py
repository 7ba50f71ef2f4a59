"""Where a build's heavy work runs: parsing the log records, embedding the first user
messages, and the model stages' decisions. The local engine does all three in this process;
the Ray executor (checkbench.distributed) gives an engine whose workers do them, while the
driver keeps what needs every record in order (ids, counts, clustering) and writes the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from checkbench.convbench.ingest import ParseRows
from checkbench.steps.stage import Dispatch, dispatch_here

if TYPE_CHECKING:  # embedding needs the build extra, imported only when topics run
    from checkbench.convbench.embed import EmbedChunks


@dataclass(frozen=True)
class BuildEngine:
    """`parse` and `embed` None: in this process (`parse_rows`, `embed_here`); `dispatch`
    works off the model stages' decisions."""

    parse: ParseRows | None = None
    embed: EmbedChunks | None = None
    dispatch: Dispatch = dispatch_here


LOCAL_ENGINE = BuildEngine()
"""Everything in this process."""
