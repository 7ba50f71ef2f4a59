"""The topic filter's settings and results, apart from the clustering code so that reading or
writing them does not import scikit-learn."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator


class TopicConfig(BaseModel):
    """Knobs of the topic filter; the defaults suit corpora from thousands to millions."""

    k: int | None = Field(None, ge=1, description="fixed number of clusters; None: choose")
    k_min: int = Field(2, ge=2)
    k_max: int = Field(20, ge=2)
    sample_size: int = Field(2000, ge=10, description="sample for choosing k and the vocabulary")
    chunk_size: int = Field(4096, ge=1, description="conversations embedded and fitted at once")
    top_n: int = Field(10, ge=1, description="keywords per cluster")
    min_matches: int = Field(2, ge=1, description="keywords in the vocabulary to keep a cluster")
    message_matches: int = Field(
        1,
        ge=0,
        description="distinct vocabulary terms in a conversation's own first message that keep "
        "it outside a kept cluster (recall: the zero-shot check after decides); 0: off",
    )
    form_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="share of a cluster's messages in the domain's form (math: notation, "
        "`convbench.forms`) that keeps it whatever its keywords",
    )
    max_chars: int = Field(2000, ge=1, description="first user message cut to this length")
    max_vocab: int = Field(20000, ge=1, description="keyword candidates from the sample")
    openers: int = Field(3, ge=0, description="first messages shown per cluster")
    seed: int = 0

    @model_validator(mode="after")
    def _consistent(self) -> TopicConfig:
        if self.k_min > self.k_max:
            raise ValueError("k_min must not exceed k_max")
        if max(self.k or 0, self.k_max) > self.chunk_size:
            raise ValueError("chunk_size must be at least the number of clusters")
        if self.min_matches > self.top_n:
            raise ValueError("min_matches must not exceed top_n")
        return self


class Cluster(BaseModel):
    """One topic: its size, keywords, the keywords in the domain vocabulary, the verdict, and
    the beginnings of the first messages nearest to its centre."""

    id: int
    size: int
    keywords: list[str]
    matched: list[str]
    kept: bool
    form_share: float | None = Field(
        None, description="share of its messages in the domain's form; None: no form"
    )
    openers: list[str] = Field(default_factory=list)


class Assignment(BaseModel):
    """One conversation's topic: a line of the assignments file."""

    id: str
    cluster: int
    kept: bool


class TopicReport(BaseModel):
    """What the topic filter found: the clusters, how k was chosen, and where time went."""

    n: int
    kept: int = Field(description="conversations kept: in kept clusters or by their message")
    rescued: int = Field(
        0, description="of them, kept by their own first message outside a kept cluster"
    )
    k: int
    silhouette: dict[int, float] = Field(description="sample silhouette per k tried")
    embedder: str
    clusters: list[Cluster]
    timings: dict[str, float] = Field(
        description="seconds per stage; stream = reading, embedding and spilling"
    )
