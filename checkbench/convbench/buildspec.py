"""What a build reads and makes: the `BuildSpec` that `checkbench build` fills from its options."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from checkbench.convbench.flow import Mode
from checkbench.convbench.ingest import Format
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.convbench.topic_report import TopicConfig


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
