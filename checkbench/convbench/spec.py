"""What a build reads and makes, and where its heavy work runs: the `BuildSpec` that
`checkbench convbench build` fills from its options, and the `BuildEngine`.

Parsing the log records, embedding the first user messages and the model stages' decisions run
in this process with the local engine; the Ray engine (`ray_engine`) gives one whose workers do
them, while the driver keeps what needs every record in order (ids, counts, clustering) and
writes the run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from checkbench.choices import Curation as Mode
from checkbench.convbench.ingest import Format, ParseRows
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.convbench.topic_report import TopicConfig
from checkbench.steps.stage import Dispatch, dispatch_here

if TYPE_CHECKING:  # embedding needs the build extra, imported only when topics run
    from checkbench.convbench.embed import EmbedChunks


class BuildSpec(BaseModel):
    """What to build from which logs; everything but `strict` must match to reuse a run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    logs: list[Path] = Field(min_length=1)
    mode: Mode = "conv-to-bench"
    domain: str | None = None
    domain_description: str | None = None
    vocab: Path | None = Field(None, description="vocabulary file; default: the domain's own")
    markers: Path | None = Field(None, description="feedback: extra concession markers file")
    fmt: Format = "auto"
    strict: bool = False
    limit: int | None = Field(None, ge=1, description="conversations to read from each log")
    model: str = "local"
    embedder: str = "auto"
    topics: TopicConfig = Field(default_factory=TopicConfig)
    settings: ConvBenchSettings = Field(default_factory=ConvBenchSettings)


@dataclass(frozen=True)
class BuildEngine:
    """`parse` and `embed` None: in this process (`parse_rows`, `embed_here`); `dispatch`
    works off the model stages' decisions."""

    parse: ParseRows | None = None
    embed: EmbedChunks | None = None
    dispatch: Dispatch = dispatch_here


LOCAL_ENGINE = BuildEngine()
"""Everything in this process."""
