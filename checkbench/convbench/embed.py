"""Sentence embeddings behind one small protocol: one L2-normalised float32 row per text.

Backends: ``auto`` (the default: wordllama for text in spaced scripts, character n-grams for
Chinese, see `MultilingualEmbedder`), wordllama alone (offline, from the files its wheel ships),
sentence-transformers (optional, imported when used) and any OpenAI-compatible
``/v1/embeddings`` endpoint.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import httpx
import numpy as np
from scipy import sparse

from checkbench.convbench.segment import HAN, HAN_RUN
from checkbench.errors import CheckbenchError, InputError


class Embedder(Protocol):
    """Maps texts to unit-length float32 vectors, one row per text, order kept."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a non-empty batch of texts: shape (len(texts), dim), rows L2-normalised."""
        ...


@runtime_checkable
class FittedEmbedder(Embedder, Protocol):
    """An embedder that first learns from a sample of the texts it will embed."""

    def fit(self, texts: Sequence[str]) -> None:
        """Learn from a uniform sample of the corpus, before any `embed`."""
        ...


EmbedChunks = Callable[[Embedder, Iterable[Sequence[str]]], Iterator[np.ndarray]]
"""Embeds chunks of texts with an embedder, one array per chunk, in order."""


def embed_here(embedder: Embedder, chunks: Iterable[Sequence[str]]) -> Iterator[np.ndarray]:
    """Each chunk embedded in this process."""
    return map(embedder.embed, chunks)


def l2_normalise(vectors: Any) -> np.ndarray:
    """Rows scaled to unit length as float32; an all-zero row stays zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))


# The wordllama tokenizer (Llama 2's) normalises like sentencepiece, prepending "▁" and
# turning spaces into "▁", then runs BPE over the whole text at once. BPE never merges across
# the start of a "▁"-led word, so tokenizing word by word gives the same ids.
_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    ],
}
_WORD = re.compile("▁*[^▁]+|▁+")


class WordLlamaEmbedder:
    """Averaged static token embeddings (wordllama l2_supercat): fast on CPU, no network.

    `dim` truncates the shipped 256-d vectors (Matryoshka-trained: 64 and 128 keep most of the
    quality); only the first `max_tokens` tokens of a text count.

    The vectors are wordllama's own (mean pooling, normalised), computed faster: words are
    tokenized once and cached (`cached_words` of them), which is ~5x faster than the tokenizer's
    batch call, and pooling is one sparse product instead of a padded (texts x tokens x dim)
    array. One difference: literal special-token strings such as "<s>" in a text are split
    like other text instead of becoming their special token.
    """

    def __init__(self, *, dim: int = 256, max_tokens: int = 512, cached_words: int = 2**16) -> None:
        model = _load_wordllama(dim)
        tokenizer = json.loads(model.tokenizer.to_str())
        if tokenizer["normalizer"] != _NORMALIZER or tokenizer["pre_tokenizer"] is not None:
            raise CheckbenchError("this wordllama version's tokenizer is not the one expected")
        self._table: np.ndarray = model.embedding
        self._bpe = model.tokenizer.model
        self._cached_words = cached_words
        self._word_ids = functools.lru_cache(maxsize=cached_words)(self._tokenize_word)
        self.max_tokens = max_tokens
        self.name = f"wordllama:l2_supercat:{dim}"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the word cache (Ray ships the fitted embedder to its workers)."""
        return {k: v for k, v in self.__dict__.items() if k != "_word_ids"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._word_ids = functools.lru_cache(maxsize=self._cached_words)(self._tokenize_word)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Mean token vector of each text, as (texts x token counts) @ table, normalised.

        The mean's division by the length is dropped: the L2 normalisation cancels it.
        """
        token_lists = [self._ids(text) for text in texts]
        offsets = np.zeros(len(token_lists) + 1, dtype=np.int64)
        np.cumsum([len(ids) for ids in token_lists], out=offsets[1:])
        tokens = np.fromiter(chain.from_iterable(token_lists), np.int64, offsets[-1])
        bags = sparse.csr_matrix(
            (np.ones(len(tokens), np.float32), tokens, offsets),
            shape=(len(token_lists), len(self._table)),
        )
        return l2_normalise(bags @ self._table)

    def _ids(self, text: str) -> list[int]:
        """The tokenizer's ids for a text, up to `max_tokens`; work stops there too."""
        ids: list[int] = []
        if not text:
            return ids
        for word in _WORD.finditer("▁" + text.replace(" ", "▁")):
            ids.extend(self._word_ids(word.group()))
            if len(ids) >= self.max_tokens:
                return ids[: self.max_tokens]
        return ids

    def _tokenize_word(self, word: str) -> tuple[int, ...]:
        return tuple(token.id for token in self._bpe.tokenize(word))


def _load_wordllama(dim: int) -> Any:
    """Load the weights and tokenizer that the wordllama wheel ships, never downloading.

    wordllama looks for its tokenizer under ``<package>/tokenizer/`` but ships it under
    ``<package>/tokenizers/``; pointing its cache at the package folder finds both files.
    Importing it also calls ``logging.basicConfig(level=INFO)``; the root logger is restored.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    except ImportError:
        raise CheckbenchError(
            "the wordllama embedder needs the build extra: pip install 'checkbench[build]'"
        ) from None
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    try:
        return wordllama.WordLlama.load(
            dim=256,
            trunc_dim=None if dim == 256 else dim,
            cache_dir=Path(wordllama.__file__).parent,
            disable_download=True,
        )
    except (FileNotFoundError, ValueError) as exc:
        raise CheckbenchError(f"cannot load wordllama (dim={dim}) offline: {exc}") from None


class SentenceTransformerEmbedder:
    """Any sentence-transformers model (needs `pip install sentence-transformers`)."""

    def __init__(self, model: str, *, device: str | None = None, batch_size: int = 64) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise CheckbenchError(
                "the sentence-transformers embedder needs: pip install sentence-transformers"
            ) from None
        self._model = SentenceTransformer(model, device=device)
        self.batch_size = batch_size
        self.name = f"sentence-transformers:{model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts with the model's own batching."""
        vectors = self._model.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return l2_normalise(vectors)


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint: POST ``{base_url}/embeddings``.

    `base_url` ends with the API version, as in the OpenAI SDK (``http://localhost:8000/v1``).
    The API key is read from the environment variable named `api_key_env` (none: no key sent).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key_env: str | None = None,
        batch_size: int = 256,
        timeout_s: float = 60.0,
    ) -> None:
        headers = {}
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise CheckbenchError(f"environment variable {api_key_env} (API key) is not set")
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=timeout_s,
            transport=httpx.HTTPTransport(retries=2),
        )
        self.model = model
        self.batch_size = batch_size
        self.name = f"openai:{model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts, `batch_size` inputs per request."""
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            rows.extend(self._request(list(texts[start : start + self.batch_size])))
        return l2_normalise(rows)

    def _request(self, batch: list[str]) -> list[list[float]]:
        try:
            response = self._client.post("embeddings", json={"model": self.model, "input": batch})
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda row: row["index"])
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise CheckbenchError(
                f"embedding request to {self._client.base_url} failed: {exc}"
            ) from None
        if len(data) != len(batch):
            raise CheckbenchError(f"embedding endpoint returned {len(data)} rows for {len(batch)}")
        return [row["embedding"] for row in data]

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()


class HanCharEmbedder:
    """The Han characters of a text as character 1-2-gram TF-IDF, reduced by LSA (truncated
    SVD) to `dim` dimensions; both are fitted on a sample of the corpus.

    Why: wordllama's tokenizer (Llama 2's) has few Chinese tokens and falls back to bytes, so
    its vectors of Chinese texts are nearly all alike. On the 591 FB-Bench queries (mostly
    Chinese, 8 task types), a same-task pair is more similar than a pair of different tasks in
    54% of cases with wordllama and 65% with this embedder; the nearest neighbour shares the
    task for 36% and 64% (bench/bench_topics.py --chinese). Chinese words are mostly one or two
    characters, so unigrams and bigrams need no segmenter. It learns from the corpus: on a few
    dozen texts that share no words it has little to go on.
    """

    def __init__(self, *, dim: int = 64, max_features: int = 2**17) -> None:
        self.dim = dim
        self.max_features = max_features
        self.name = f"han-chars:1-2:lsa{dim}"
        self._tfidf: Any = None
        self._svd: Any = None

    def fit(self, texts: Sequence[str]) -> None:
        """Learn the n-gram weights and the LSA basis from sample texts."""
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        runs = [han_text(text) for text in texts]
        self._tfidf = TfidfVectorizer(
            analyzer="char_wb",
            ngram_range=(1, 2),
            sublinear_tf=True,
            min_df=2 if len(runs) >= 20 else 1,
            max_features=self.max_features,
            dtype=np.float32,
        )
        counts = self._tfidf.fit_transform(runs)
        self._svd = TruncatedSVD(max(1, min(self.dim, min(counts.shape) - 1)), random_state=0)
        self._svd.fit(counts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The LSA vector of each text's Han characters (zero when it has none)."""
        if self._svd is None:
            raise CheckbenchError("HanCharEmbedder.embed before fit")
        counts = self._tfidf.transform([han_text(text) for text in texts])
        return l2_normalise(self._svd.transform(counts))


def han_text(text: str) -> str:
    """The text's runs of Han characters, one space between runs."""
    return " ".join(HAN_RUN.findall(text))


def han_share(text: str) -> float:
    """How Chinese a text is: Han characters over Han characters plus a third of the other
    letters (a Han character carries about as much as a three-letter stretch of a word)."""
    han = len(HAN.findall(text))
    other = sum(ch.isalpha() for ch in text) - han
    return han / (han + other / 3) if han else 0.0


class MultilingualEmbedder:
    """Each script read by the model that reads it: a text's vector joins wordllama's vector of
    its text without Han characters and the `HanCharEmbedder` vector of its Han characters,
    weighted by the square roots of the text's non-Han and Han shares (so the row has unit
    length). English rows equal wordllama's (then padded with zeros); Chinese rows are the
    character n-gram vectors. The Han part is learnt only when the fitting sample holds at least
    `min_han_texts` texts with Han characters; otherwise every row is wordllama's alone.
    """

    def __init__(self, spaced: Embedder, han: HanCharEmbedder, *, min_han_texts: int = 10) -> None:
        self._spaced = spaced
        self._han = han
        self.min_han_texts = min_han_texts
        self.reads_han = False
        self.name = f"auto({spaced.name})"

    def fit(self, texts: Sequence[str]) -> None:
        """Learn the Han part from the sample's Chinese texts, if there are enough."""
        chinese = [text for text in texts if HAN.search(text)]
        self.reads_han = len(chinese) >= self.min_han_texts
        if self.reads_han:
            self._han.fit(chinese)
        self.name = f"auto({self._spaced.name}" + (f"+{self._han.name})" if self.reads_han else ")")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The joined vectors, one row per text."""
        if not self.reads_han:
            return self._spaced.embed(texts)
        shares = np.array([han_share(text) for text in texts], dtype=np.float32)[:, None]
        spaced = self._spaced.embed([HAN_RUN.sub(" ", text) for text in texts])
        han = self._han.embed(texts)
        return np.hstack([np.sqrt(1 - shares) * spaced, np.sqrt(shares) * han])


def make_embedder(
    spec: str = "auto", *, base_url: str | None = None, api_key_env: str | None = None
) -> Embedder:
    """An embedder from a short spec: ``auto`` (wordllama with Chinese character n-grams),
    ``wordllama[:DIM]``, ``sentence-transformers:MODEL``, ``openai:MODEL`` (with `base_url`
    and `api_key_env`)."""
    kind, _, arg = spec.partition(":")
    if kind == "auto" and not arg:
        return MultilingualEmbedder(WordLlamaEmbedder(), HanCharEmbedder())
    if kind == "wordllama":
        if arg and not arg.isdigit():
            raise InputError(f"wordllama takes a dimension (64, 128, 256), not {arg!r}")
        return WordLlamaEmbedder(dim=int(arg or 256))
    if kind == "sentence-transformers" and arg:
        return SentenceTransformerEmbedder(arg)
    if kind == "openai" and arg:
        options = {"base_url": base_url} if base_url else {}
        return OpenAIEmbedder(arg, api_key_env=api_key_env, **options)
    raise InputError(
        f"unknown embedder {spec!r}; use auto, wordllama[:DIM], sentence-transformers:MODEL or "
        "openai:MODEL"
    )
