"""What a check's text alone tells: a placeholder left by a generator ("<yes/no question>",
"..."), the item's prompt echoed as a check, and near-duplicates of an earlier check of the
same item by the cosine of their embeddings (character n-gram TF-IDF, which reads any script,
or wordllama from the build extra for spaced scripts)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from checkbench.choices import SimilarityBackend
from checkbench.errors import CheckbenchError

Embed = Callable[[Sequence[str]], Any]
"""Texts -> one vector per text (the api passes wordllama's when the build extra is installed)."""

_PLACEHOLDER = re.compile(
    r"^\s*(?:<[^<>]*>|\[[^\[\]]*\]|\{\{?[^{}]*\}\}?|\.{2,}|…+|-+|_+|\?+|tbd|todo|n/?a|xxx+|"
    r"placeholder|check|question|yes/no question)\s*[.?!]?\s*$",
    re.IGNORECASE,
)
"""A whole text that is a template slot, an ellipsis or a stand-in word."""
_NEGATIONS = {
    "not",
    "no",
    "dont",
    "doesnt",
    "didnt",
    "isnt",
    "never",
    "不",
    "没",
    "没有",
    "未",
    "非",
    "否",
}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class TextFlags:
    """Per check (run order): the reason it is a placeholder or an echo (None when not), and
    the number of the earlier check of its item it nearly duplicates with their cosine."""

    placeholder: list[str | None]
    duplicate_of: np.ndarray
    """0 when none, else the 1-based number of the earlier check in its item."""
    cosine: np.ndarray
    backend: str


def _normal(text: str) -> str:
    kept = (c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum() or c == " ")
    return " ".join("".join(kept).split())


def placeholder_reason(text: str, prompt: str | None) -> str | None:
    """Why a check's text carries no requirement of its own, or None."""
    if _PLACEHOLDER.match(text) or not _normal(text):
        return f"placeholder text {text.strip()[:40]!r}"
    if prompt and len(_normal(text)) >= 8 and _normal(text) == _normal(prompt):
        return "echoes the item's prompt"
    return None


def backend_for(texts: Sequence[str], backend: SimilarityBackend, embedder: Embed | None) -> str:
    """The embedding a run's check texts get: auto takes wordllama when its embedder is given
    (the build extra is installed) and fewer than a tenth of the texts hold CJK characters,
    else character n-grams."""
    if backend == "wordllama" and embedder is None:
        raise CheckbenchError(
            "--similarity wordllama needs the build extra: pip install 'checkbench[build]'"
        )
    if backend != "auto":
        return backend
    cjk = sum(bool(_CJK.search(text)) for text in texts)
    return "wordllama" if embedder is not None and cjk * 10 < max(len(texts), 1) else "ngrams"


def embed(texts: Sequence[str], backend: str, embedder: Embed | None = None) -> Any:
    """Unit-length rows, one per text (a sparse matrix for n-grams)."""
    if backend == "wordllama" and embedder is not None:
        vectors = np.asarray(embedder(texts), dtype=float)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)
    from sklearn.feature_extraction.text import TfidfVectorizer

    tfidf = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True)
    return tfidf.fit_transform([_normal(t) or t for t in texts])  # sparse, rows unit length


def _negated(a: str, b: str) -> bool:
    """Whether two texts differ only by a negation ("not", "不"): opposite checks, which
    n-grams and averaged embeddings see as near-identical."""
    a, b = _normal(a), _normal(b)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    rest = {a[start : len(a) - end].strip(), b[start : len(b) - end].strip()} - {""}
    return len(rest) == 1 and rest.pop() in _NEGATIONS


def _pairs(position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(earlier, later) indices of every pair of checks of one item, by later then earlier."""
    starts = np.searchsorted(position, position)
    counts = np.arange(len(position)) - starts
    later = np.repeat(np.arange(len(position)), counts)
    offset = np.arange(len(later)) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[later] + offset, later


def text_flags(
    position: np.ndarray,
    texts: Sequence[str],
    prompts: Sequence[str | None],
    *,
    similarity: float,
    backend: SimilarityBackend = "auto",
    embedder: Embed | None = None,
) -> TextFlags:
    """Placeholder, echo and near-duplicate flags of the checks (`position`: their item's,
    in run order). A check duplicates the first earlier check of its item at cosine >=
    `similarity`; placeholders are not compared."""
    placeholder = [placeholder_reason(t, p) for t, p in zip(texts, prompts, strict=True)]
    duplicate_of = np.zeros(len(texts), dtype=np.int64)
    cosine = np.zeros(len(texts))
    chosen = backend_for(texts, backend, embedder)
    if not texts:
        return TextFlags(placeholder, duplicate_of, cosine, chosen)
    vectors = embed(texts, chosen, embedder)
    earlier, later = _pairs(position)
    if hasattr(vectors, "multiply"):
        cosines = np.asarray(vectors[earlier].multiply(vectors[later]).sum(axis=1)).ravel()
    else:
        cosines = np.einsum("ij,ij->i", vectors[earlier], vectors[later])
    for e, k, cos in zip(earlier.tolist(), later.tolist(), cosines.tolist(), strict=True):
        if (
            cos >= similarity
            and not duplicate_of[k]
            and placeholder[k] is None
            and not _negated(texts[k], texts[e])
        ):
            duplicate_of[k] = e - int(np.searchsorted(position, position[k])) + 1
            cosine[k] = cos
    return TextFlags(placeholder, duplicate_of, cosine, chosen)
