"""First tier of the Conv-to-Bench domain filter: topic clusters of first user messages.

Memory stays flat in the number of conversations; per-conversation data waits on disk.

1. Stream: spill each conversation's id and first user message to a scratch folder and keep a
   seeded uniform sample (reservoir) of the messages. An embedder that learns from the corpus
   (the default one, for Chinese) is fitted on the sample; then the spilled messages are
   embedded chunk by chunk and their vectors spilled too.
2. Choose k: k-means on the sample for each k in [k_min, k_max]; the best mean silhouette wins
   (ties go to the smaller k). k never exceeds sample / 10, so that a small log (20
   conversations: 2 clusters) is not cut into clusters of one or two messages.
   Silhouette needs no labels and rewards compact, well-separated
   topics; on a bounded sample it costs the same whatever the corpus size. A fixed `k` skips the
   search (and is still scored). On real logs silhouette tends to prefer few broad topics: raise
   `k_min` or fix `k` for finer ones.
3. Fit: MiniBatchKMeans starts from the sample's centres and is refined by `partial_fit` over
   the spilled chunks, one pass.
4. Keywords: every conversation goes to its nearest centre; words (`segment`: any script,
   Chinese segmented) are counted per cluster over a bounded vocabulary (the sample's
   `max_vocab` most frequent words plus the domain vocabulary) and ranked by class-based TF-IDF
   (c-TF-IDF, as in BERTopic): the word's share of the cluster's words times log(1 + average
   words per cluster / the word's count over all clusters). The `openers` messages nearest to
   each centre are kept to show what the cluster is about.
5. Keep a cluster when at least `min_matches` of its `top_n` keywords are in the vocabulary,
   or, for a domain whose text has a form (`forms.FORMS`: math's notation, the same in every
   language), when at least `form_share` of its messages carry that form. Leaning to recall,
   keep too any conversation outside a kept cluster whose own first message holds
   `message_matches` distinct vocabulary terms (a probability question in a cluster of general
   questions); for a domain with a form, a message with the form is kept, and one kept by its
   terms must also hold a number (a math question states quantities). The zero-shot check
   after this tier (`domain`) brings the precision.

Results are deterministic for a given seed and input order.
"""

from __future__ import annotations

import heapq
import json
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import pairwise_distances, silhouette_score
from threadpoolctl import threadpool_limits

from checkbench.convbench.embed import EmbedChunks, Embedder, FittedEmbedder, embed_here
from checkbench.convbench.forms import FormOf
from checkbench.convbench.ingest import Conversation
from checkbench.convbench.segment import Segmenter
from checkbench.convbench.topic_report import Assignment, Cluster, TopicConfig, TopicReport
from checkbench.convbench.vocab import match_terms
from checkbench.errors import InputError
from checkbench.jsonl import read_models, write_jsonl

OPENER_CHARS = 100
MIN_CLUSTER_SIZE = 10
"""Sample messages per cluster, on average, that k may not go below (`k_min` aside)."""
_BLANKS = re.compile(r"\s+")


def cluster_topics(
    conversations: Iterable[Conversation],
    embedder: Embedder,
    vocabulary: frozenset[str],
    config: TopicConfig | None = None,
    *,
    assignments: str | Path | None = None,
    workdir: str | Path | None = None,
    embed: EmbedChunks | None = None,
    form: FormOf | None = None,
) -> TopicReport:
    """Cluster conversations by their first user message and keep the in-domain clusters
    (by their keywords, or by the share of messages in the domain's `form` when it has one).

    `assignments`, if given, receives one `Assignment` per conversation in input order (written
    atomically). Scratch files go to a temporary folder under `workdir` and are removed after.
    `embed` embeds the spilled messages chunk by chunk, in order, with the fitted embedder
    (here by default; the Ray executor embeds on its workers).
    """
    config = config or TopicConfig()
    timings = dict.fromkeys(("stream", "embed", "choose_k", "fit", "keywords", "assign"), 0.0)
    with tempfile.TemporaryDirectory(dir=workdir, prefix="checkbench-topics-") as scratch_dir:
        scratch = _Scratch(Path(scratch_dir))
        sample = _Reservoir(config.sample_size, np.random.default_rng(config.seed))
        with _timed(timings, "stream"):
            _spill(conversations, config, scratch, sample)
        if scratch.n == 0:
            raise InputError("no conversations to cluster")
        # One thread: the sample is small and the chunks are fitted one after the other, and on
        # few cores OpenMP and OpenBLAS threads contend (k-means ran 10x slower on 2 cores).
        # The limit reaches only libraries already loaded: sklearn is imported at module level.
        with threadpool_limits(limits=1):
            with _timed(timings, "embed"):
                sample_vectors = _embed_all(
                    embedder, scratch, sample.texts, config.chunk_size, embed or embed_here
                )
            with _timed(timings, "choose_k"):
                centres, scores = _initial_centres(sample_vectors, config)
            with _timed(timings, "fit"):
                model = _fit(scratch, centres, config)
            with _timed(timings, "keywords"):
                clusters = _describe(scratch, model, sample.texts, vocabulary, config, form)
            if assignments is not None:
                with _timed(timings, "assign"):
                    rows = _assign(scratch, model, clusters, vocabulary, config, form)
                    write_jsonl(assignments, rows)
    rescued = _rescued(assignments, clusters) if assignments is not None else 0
    return TopicReport(
        n=scratch.n,
        kept=sum(c.size for c in clusters if c.kept) + rescued,
        rescued=rescued,
        k=len(clusters),
        silhouette=scores,
        embedder=embedder.name,
        clusters=clusters,
        timings=timings,
    )


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    timings[stage] += time.perf_counter() - start


def _batched(items: Iterable[Conversation], size: int) -> Iterator[list[Conversation]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _spill(
    conversations: Iterable[Conversation],
    config: TopicConfig,
    scratch: _Scratch,
    sample: _Reservoir,
) -> None:
    """Pass 1: spill ids and first user messages chunk by chunk, and sample the messages."""
    for chunk in _batched(conversations, config.chunk_size):
        texts = [c.first_user_message[: config.max_chars] for c in chunk]
        scratch.append([c.id for c in chunk], texts)
        sample.offer(texts)


def _embed_all(
    embedder: Embedder,
    scratch: _Scratch,
    sample: list[str],
    chunk_size: int,
    embed: EmbedChunks,
) -> np.ndarray:
    """Fit the embedder on the sample if it learns, spill every message's vector, and return
    the sample's vectors."""
    if isinstance(embedder, FittedEmbedder):
        embedder.fit(sample)
    for vectors in embed(embedder, scratch.texts(chunk_size)):
        scratch.append_vectors(vectors)
    return embedder.embed(sample)


class _Scratch:
    """Ids, texts and then vectors of every conversation on disk, in arrival order."""

    def __init__(self, root: Path) -> None:
        self._ids = root / "ids.jsonl"
        self._texts = root / "texts.jsonl"
        self._vectors = root / "vectors.f32"
        self.n = 0
        self.dim = 0

    def append(self, ids: list[str], texts: list[str]) -> None:
        """Add one chunk of ids and texts at the end."""
        for path, lines in ((self._ids, ids), (self._texts, texts)):
            with path.open("a", encoding="utf-8") as handle:
                handle.writelines(json.dumps(line) + "\n" for line in lines)
        self.n += len(ids)

    def append_vectors(self, vectors: np.ndarray) -> None:
        """Add the vectors of the next texts, in order."""
        with self._vectors.open("ab") as handle:
            np.ascontiguousarray(vectors, dtype=np.float32).tofile(handle)
        self.dim = vectors.shape[1]

    def vectors(self, size: int) -> Iterator[np.ndarray]:
        """The vectors again, `size` rows at a time."""
        with self._vectors.open("rb") as handle:
            while (block := np.fromfile(handle, np.float32, count=size * self.dim)).size:
                yield block.reshape(-1, self.dim)

    def ids(self, size: int) -> Iterator[list[str]]:
        """The ids again, `size` at a time."""
        return self._lines(self._ids, size)

    def texts(self, size: int) -> Iterator[list[str]]:
        """The texts again, `size` at a time."""
        return self._lines(self._texts, size)

    @staticmethod
    def _lines(path: Path, size: int) -> Iterator[list[str]]:
        with path.open(encoding="utf-8") as handle:
            while batch := [json.loads(line) for line in islice(handle, size)]:
                yield batch


class _Reservoir:
    """A seeded uniform sample of fixed size from a stream of unknown length (Algorithm R)."""

    def __init__(self, size: int, rng: np.random.Generator) -> None:
        self.size = size
        self.texts: list[str] = []
        self._rng = rng
        self._seen = 0

    def offer(self, texts: list[str]) -> None:
        """Consider one chunk: fill the sample first, then replace at random."""
        fill = max(0, min(self.size - len(self.texts), len(texts)))
        self.texts.extend(texts[:fill])
        seen = self._seen + np.arange(fill, len(texts))
        slots = self._rng.integers(0, seen + 1) if len(seen) else seen
        for index in np.flatnonzero(slots < self.size):
            self.texts[slots[index]] = texts[fill + index]
        self._seen += len(texts)


def _initial_centres(
    sample: np.ndarray, config: TopicConfig
) -> tuple[np.ndarray, dict[int, float]]:
    """Centres for the chosen k (k-means on the sample) and the silhouette of each k tried."""
    distinct = len(np.unique(sample, axis=0))
    if config.k is not None:
        candidates = [min(config.k, distinct)]
    else:
        most = max(config.k_min, len(sample) // MIN_CLUSTER_SIZE)
        candidates = list(range(config.k_min, min(config.k_max, most, distinct - 1) + 1))
        candidates = candidates or [min(config.k_min, distinct)]
    fits = {
        k: KMeans(k, n_init=3, max_iter=60, random_state=config.seed).fit(sample)
        for k in candidates
    }
    scores = _silhouettes(sample, {k: fit.labels_ for k, fit in fits.items()})
    best = max(scores, key=lambda k: (scores[k], -k)) if scores else candidates[0]
    return fits[best].cluster_centers_.astype(np.float32), scores


def _silhouettes(sample: np.ndarray, labelings: dict[int, np.ndarray]) -> dict[int, float]:
    """Mean silhouette of each labeling with 2+ clusters, from one distance matrix."""
    scorable = {k: labels for k, labels in labelings.items() if 1 < len(set(labels)) < len(sample)}
    if not scorable:
        return {}
    distances = pairwise_distances(sample)
    return {
        k: round(float(silhouette_score(distances, labels, metric="precomputed")), 6)
        for k, labels in scorable.items()
    }


def _fit(scratch: _Scratch, centres: np.ndarray, config: TopicConfig) -> MiniBatchKMeans:
    """MiniBatchKMeans from the sample's centres, one partial_fit per spilled chunk.

    Reassignment is off: the start is already a k-means solution, and reassigning would move
    the centre of a small but real topic to a random point.
    """
    model = MiniBatchKMeans(
        len(centres),
        init=centres,
        n_init=1,
        batch_size=config.chunk_size,
        compute_labels=False,
        reassignment_ratio=0.0,
        random_state=config.seed,
    )
    for vectors in scratch.vectors(config.chunk_size):
        model.partial_fit(vectors)
    return model


def _vectorizer(
    sample_texts: list[str], vocabulary: frozenset[str], max_vocab: int
) -> CountVectorizer:
    """A word counter over a bounded vocabulary: the sample's top words plus the domain's."""
    words = Segmenter(vocabulary).words
    try:
        frequent = CountVectorizer(max_features=max_vocab, analyzer=words).fit(sample_texts)
        top = set(frequent.vocabulary_)
    except ValueError:  # the sample holds only stop words
        top = set()
    return CountVectorizer(vocabulary=sorted(top | vocabulary), analyzer=words)


def _describe(
    scratch: _Scratch,
    model: MiniBatchKMeans,
    sample_texts: list[str],
    vocabulary: frozenset[str],
    config: TopicConfig,
    form: FormOf | None = None,
) -> list[Cluster]:
    """Pass 2: size, word counts and messages in the domain's form per cluster, then keywords
    and the keep verdict."""
    k = len(model.cluster_centers_)
    counter = _vectorizer(sample_texts, vocabulary, config.max_vocab)
    words = counter.get_feature_names_out()
    sizes = np.zeros(k, dtype=np.int64)
    formed = np.zeros(k, dtype=np.int64)
    counts = np.zeros((k, len(words)), dtype=np.float64)
    nearest: list[list[tuple[float, str]]] = [[] for _ in range(k)]
    chunks = zip(scratch.vectors(config.chunk_size), scratch.texts(config.chunk_size), strict=True)
    for vectors, texts in chunks:
        labels = model.predict(vectors)
        sizes += np.bincount(labels, minlength=k)
        members = sparse.csr_matrix(
            (np.ones(len(labels)), (labels, np.arange(len(labels)))), shape=(k, len(labels))
        )
        counts += (members @ counter.transform(texts)).toarray()
        distances = ((vectors - model.cluster_centers_[labels]) ** 2).sum(axis=1)
        for cid, distance, message in zip(labels.tolist(), distances.tolist(), texts, strict=True):
            _offer_opener(nearest[cid], distance, message, config.openers)
            if form is not None and form(message).notation:
                formed[cid] += 1
    scores = class_tfidf(counts)
    clusters = []
    for cid in range(k):
        ranked = np.argsort(-scores[cid], kind="stable")[: config.top_n]
        keywords = [str(words[i]) for i in ranked if counts[cid, i] > 0]
        matched = match_terms(keywords, vocabulary)
        share = None if form is None else float(formed[cid] / max(int(sizes[cid]), 1))
        in_form = share is not None and sizes[cid] > 0 and share >= config.form_share
        clusters.append(
            Cluster(
                id=cid,
                size=int(sizes[cid]),
                keywords=keywords,
                matched=matched,
                kept=len(matched) >= config.min_matches or in_form,
                form_share=share,
                openers=[opener for _, opener in sorted(nearest[cid], key=lambda e: -e[0])],
            )
        )
    return clusters


def _offer_opener(kept: list[tuple[float, str]], distance: float, text: str, n: int) -> None:
    """Keep the `n` distinct openers nearest to the centre (a max-heap on the distance)."""
    opener = _BLANKS.sub(" ", text).strip()[:OPENER_CHARS]
    if n == 0 or any(opener == seen for _, seen in kept):
        return
    if len(kept) < n:
        heapq.heappush(kept, (-distance, opener))
    elif -kept[0][0] > distance:
        heapq.heapreplace(kept, (-distance, opener))


def class_tfidf(counts: np.ndarray) -> np.ndarray:
    """c-TF-IDF of a (clusters x words) count matrix: tf within the cluster times
    log(1 + average words per cluster / the word's count over all clusters)."""
    tf = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
    average = counts.sum() / max(len(counts), 1)
    idf = np.log1p(average / np.maximum(counts.sum(axis=0), 1.0))
    return tf * idf


def _assign(
    scratch: _Scratch,
    model: MiniBatchKMeans,
    clusters: list[Cluster],
    vocabulary: frozenset[str],
    config: TopicConfig,
    form: FormOf | None = None,
) -> Iterator[Assignment]:
    """Pass 3: each conversation's cluster and verdict, in input order: kept with its cluster,
    or by its own message (`_own_message`)."""
    kept = [c.kept for c in clusters]
    words = Segmenter(vocabulary).words
    size = config.chunk_size
    chunks = zip(scratch.ids(size), scratch.vectors(size), scratch.texts(size), strict=True)
    for ids, vectors, texts in chunks:
        labels = model.predict(vectors).tolist()
        for conversation_id, label, text in zip(ids, labels, texts, strict=True):
            own = bool(config.message_matches) and not kept[label]
            yield Assignment(
                id=conversation_id,
                cluster=label,
                kept=kept[label] or (own and _own_message(text, words, vocabulary, config, form)),
            )


def _own_message(
    text: str,
    words: Callable[[str], list[str]],
    vocabulary: frozenset[str],
    config: TopicConfig,
    form: FormOf | None,
) -> bool:
    """Whether a first message outside the kept clusters is in the domain by itself: it holds
    `message_matches` distinct vocabulary terms, or, for a domain with a form, it carries the
    form, or holds those terms and a number."""
    shape = form(text) if form is not None else None
    if shape is not None and shape.notation:
        return True
    named = len(set(match_terms(set(words(text)), vocabulary)))
    return named >= config.message_matches and (shape is None or shape.numbers > 0)


def _rescued(assignments: str | Path, clusters: list[Cluster]) -> int:
    """Conversations kept by their own message outside a kept cluster."""
    kept = [c.kept for c in clusters]
    return sum(a.kept and not kept[a.cluster] for a in read_models(assignments, Assignment))
