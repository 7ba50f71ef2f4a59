"""Embedding, topic clustering, keywords and the vocabulary filter, on data with known answers."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from checkbench.convbench.embed import (
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    WordLlamaEmbedder,
    make_embedder,
)
from checkbench.convbench.ingest import iter_conversations
from checkbench.convbench.segment import Segmenter
from checkbench.convbench.topic_report import Assignment, TopicConfig, TopicReport
from checkbench.convbench.topics import _Reservoir, class_tfidf, cluster_topics
from checkbench.convbench.vocab import BUILTIN, load_vocabulary, match_terms
from checkbench.errors import CheckbenchError, InputError
from checkbench.jsonl import read_models

# Three topics, each a pool of phrases; every request mixes three phrases of one pool, so a
# topic has no tighter sub-topics for k-means to find.
POOLS = {
    "python": [
        "my python function",
        "a python script",
        "this python class",
        "the list comprehension",
        "a dictionary of lists",
        "a TypeError in python",
        "the pandas dataframe",
        "a recursive python function",
        "python loop over a list",
        "import numpy in python",
        "the python code below",
        "parse json in python",
        "a python decorator",
        "sort a python list",
    ],
    "algebra": [
        "the quadratic equation",
        "solve for x",
        "factor the polynomial",
        "the algebra problem",
        "simplify the expression",
        "linear equation with two variables",
        "the roots of the equation",
        "solve the system of equations",
        "an algebraic fraction",
        "expand the brackets in algebra",
        "the equation 3x + 5 = 20",
        "the inequality 2x - 1 > 7",
    ],
    "poem": [
        "a poem about the sea",
        "a rhyming poem",
        "a short poem for my mother",
        "a haiku poem",
        "a sonnet about love",
        "a poem with four stanzas",
        "a funny poem",
        "a poem about autumn leaves",
        "a love poem",
        "a free verse poem about the city",
        "a poem in the style of Robert Frost",
    ],
}
OPENERS = ["Can you help with", "Please explain", "I need", "Write", "Help me with", "Show me"]
PER_TOPIC = 300


@pytest.fixture(scope="module")
def embedder() -> WordLlamaEmbedder:
    return WordLlamaEmbedder()


@pytest.fixture(scope="module")
def three_topics(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of 900 chats, topics interleaved; each chat's id names its topic."""
    rng = random.Random(7)
    path = tmp_path_factory.mktemp("logs") / "three.jsonl"
    with path.open("w") as handle:
        for i in range(PER_TOPIC * len(POOLS)):
            topic = list(POOLS)[i % len(POOLS)]
            text = f"{rng.choice(OPENERS)} {' and '.join(rng.sample(POOLS[topic], 3))}"
            record = {
                "id": f"{topic}-{i}",
                "messages": [
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": "Sure."},
                    {"role": "user", "content": "thanks, now make it shorter"},
                ],
            }
            handle.write(json.dumps(record) + "\n")
    return path


# Small chunks and sample, so streaming, reservoir replacement and partial_fit are exercised.
CONFIG = TopicConfig(chunk_size=128, sample_size=600, seed=3, message_matches=0)
"""Clusters only: a conversation is kept with its cluster."""


def run(
    path: Path, embedder: WordLlamaEmbedder, *vocab: str, out: Path | None = None
) -> TopicReport:
    return cluster_topics(
        iter_conversations(path), embedder, load_vocabulary(*vocab), CONFIG, assignments=out
    )


def by_topic(assignments: list[Assignment]) -> dict[str, set[int]]:
    """The clusters the chats of each topic went to."""
    clusters: dict[str, set[int]] = {}
    for row in assignments:
        clusters.setdefault(row.id.split("-")[0], set()).add(row.cluster)
    return clusters


def test_three_topics_found_named_and_filtered(
    three_topics: Path, embedder: WordLlamaEmbedder, tmp_path: Path
) -> None:
    out = tmp_path / "assignments.jsonl"
    report = run(three_topics, embedder, "coding", out=out)
    assert report.n == 900 and report.k == 3
    assert max(report.silhouette, key=report.silhouette.__getitem__) == 3
    rows = read_models(out, Assignment)
    assert len(rows) == 900 and rows[0].id == "python-0"
    topics = by_topic(rows)
    assert all(len(ids) == 1 for ids in topics.values())  # each topic is one pure cluster
    cluster_of = {topic: ids.pop() for topic, ids in topics.items()}
    assert len(set(cluster_of.values())) == 3
    clusters = {c.id: c for c in report.clusters}
    assert [clusters[cluster_of[t]].size for t in POOLS] == [PER_TOPIC] * 3
    assert "python" in clusters[cluster_of["python"]].keywords[:3]
    assert {"equation", "algebra"} <= set(clusters[cluster_of["algebra"]].keywords[:5])
    assert clusters[cluster_of["poem"]].keywords[0] == "poem"
    kept = {topic for topic, cid in cluster_of.items() if clusters[cid].kept}
    assert kept == {"python"} and report.kept == PER_TOPIC
    assert all(row.kept == (row.cluster == cluster_of["python"]) for row in rows)
    assert set(clusters[cluster_of["python"]].matched) <= BUILTIN["coding"] | {"lists"}


def test_leaning_to_recall_a_message_that_names_the_domain_is_kept_outside_its_cluster(
    three_topics: Path, embedder: WordLlamaEmbedder, tmp_path: Path
) -> None:
    out = tmp_path / "assignments.jsonl"
    config = CONFIG.model_copy(update={"message_matches": 1})
    vocabulary = load_vocabulary("coding")
    report = cluster_topics(
        iter_conversations(three_topics), embedder, vocabulary, config, assignments=out
    )
    kept_clusters = {c.id for c in report.clusters if c.kept}
    rows = read_models(out, Assignment)
    rescued = [row for row in rows if row.kept and row.cluster not in kept_clusters]
    assert report.rescued == len(rescued) > 0 and report.kept == PER_TOPIC + report.rescued
    words = Segmenter(vocabulary).words
    texts = {c.id: c.first_user_message for c in iter_conversations(three_topics)}
    assert all(match_terms(words(texts[row.id]), vocabulary) for row in rescued)


def test_a_small_log_is_cut_into_few_clusters(tmp_path: Path, embedder: WordLlamaEmbedder) -> None:
    path = tmp_path / "small.jsonl"
    rng = random.Random(0)
    with path.open("w") as handle:
        for n in range(20):
            pool = rng.choice(list(POOLS.values()))
            record = {"id": f"c{n}", "messages": [{"role": "user", "content": rng.choice(pool)}]}
            handle.write(json.dumps(record) + "\n")
    report = cluster_topics(
        iter_conversations(path), embedder, load_vocabulary("math"), TopicConfig()
    )
    assert report.k == 2 and set(report.silhouette) <= {2}


@pytest.mark.parametrize(
    ("vocab", "kept"),
    [
        (("math",), {"algebra"}),
        (("coding", "math"), {"python", "algebra"}),
        (("writing",), {"poem"}),
    ],
)
def test_vocabulary_decides_which_clusters_are_kept(
    three_topics: Path, embedder: WordLlamaEmbedder, vocab: tuple[str, ...], kept: set[str]
) -> None:
    report = run(three_topics, embedder, *vocab)
    names = {c.id: next(t for t in POOLS if t in c.keywords) for c in report.clusters}
    assert {names[c.id] for c in report.clusters if c.kept} == kept


def test_results_are_deterministic_for_a_seed(
    three_topics: Path, embedder: WordLlamaEmbedder, tmp_path: Path
) -> None:
    first, second = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    one = run(three_topics, embedder, "coding", out=first)
    two = run(three_topics, embedder, "coding", out=second)
    assert one.model_dump(exclude={"timings"}) == two.model_dump(exclude={"timings"})
    assert first.read_bytes() == second.read_bytes()


def test_a_fixed_k_skips_the_silhouette_search(
    three_topics: Path, embedder: WordLlamaEmbedder
) -> None:
    config = CONFIG.model_copy(update={"k": 5})
    report = cluster_topics(iter_conversations(three_topics), embedder, BUILTIN["coding"], config)
    assert report.k == 5 and list(report.silhouette) == [5]  # scored, not searched
    assert sum(c.size for c in report.clusters) == 900


def test_tiny_inputs_still_cluster(tmp_path: Path, embedder: WordLlamaEmbedder) -> None:
    same = {"messages": [{"role": "user", "content": "fix my python code"}]}
    path = tmp_path / "tiny.jsonl"
    path.write_text(json.dumps(same) + "\n" + json.dumps(same) + "\n")
    report = cluster_topics(iter_conversations(path), embedder, BUILTIN["coding"])
    assert (report.n, report.k) == (2, 1)
    assert report.clusters[0].size == 2 and report.clusters[0].kept


def test_no_conversations_is_an_input_error(embedder: WordLlamaEmbedder) -> None:
    with pytest.raises(InputError, match="no conversations"):
        cluster_topics([], embedder, BUILTIN["coding"])


def test_config_rejects_inconsistent_knobs() -> None:
    with pytest.raises(ValueError, match="k_min"):
        TopicConfig(k_min=5, k_max=3)
    with pytest.raises(ValueError, match="chunk_size"):
        TopicConfig(chunk_size=10, k_max=20)
    with pytest.raises(ValueError, match="min_matches"):
        TopicConfig(top_n=2, min_matches=3)


def test_class_tfidf_prefers_words_specific_to_a_cluster() -> None:
    # words: shared, only-in-0, rare-in-0; the shared word is as frequent as the specific one
    counts = np.array([[10.0, 10.0, 1.0], [10.0, 0.0, 0.0], [10.0, 0.0, 0.0]])
    scores = class_tfidf(counts)
    assert scores[0, 1] > scores[0, 0] > 0
    assert scores[0, 1] > scores[0, 2]
    assert scores[1, 1] == 0.0


def test_reservoir_is_bounded_uniform_and_seeded() -> None:
    def sample(seed: int) -> list[str]:
        reservoir = _Reservoir(500, np.random.default_rng(seed))
        for start in range(0, 10_000, 128):
            reservoir.offer([str(i) for i in range(start, min(start + 128, 10_000))])
        return reservoir.texts

    picked = sample(0)
    indices = np.array([int(t) for t in picked])
    assert len(picked) == len(set(picked)) == 500
    assert 4500 < indices.mean() < 5500  # not the first 500
    assert np.histogram(indices, bins=4, range=(0, 10_000))[0].min() > 90
    assert sample(0) == picked and sample(1) != picked


def test_vocabularies_load_from_names_lists_and_files(tmp_path: Path) -> None:
    assert {"python", "equation", "poem"} <= load_vocabulary("coding", "math", "writing")
    assert load_vocabulary(["Pasta", " risotto "]) == {"pasta", "risotto"}
    path = tmp_path / "cooking.txt"
    path.write_text("# cooking words\npasta\n\nrisotto  # rice\n")
    assert load_vocabulary(path) == {"pasta", "risotto"}
    path.write_text("pasta\nolive oil\n")
    with pytest.raises(InputError, match="one word") as info:
        load_vocabulary(path)
    assert (info.value.path, info.value.line) == (str(path), 2)
    with pytest.raises(InputError, match="not a built-in vocabulary"):
        load_vocabulary("cooking")


def test_match_terms_folds_plurals() -> None:
    vocab = frozenset({"equation", "query", "class", "matrices"})
    keywords = ["equations", "queries", "classes", "class", "matrices", "glass"]
    assert match_terms(keywords, vocab) == ["equations", "queries", "classes", "class", "matrices"]


def test_wordllama_embeds_offline_to_unit_vectors(embedder: WordLlamaEmbedder) -> None:
    texts = ["sort a list in python", "reverse a python list", "a poem about the sea", "x" * 10_000]
    vectors = embedder.embed(texts)
    assert vectors.shape == (4, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert np.allclose(embedder.embed(texts[::-1]), vectors[::-1], atol=1e-6)


def test_wordllama_vectors_match_wordllama_itself(embedder: WordLlamaEmbedder) -> None:
    from checkbench.convbench.embed import _load_wordllama

    texts = [
        "Can you fix my Python code?",
        "def f(x):\n    return  x  *  2\n\n\tprint( 'hi' )   ",
        "  leading and trailing spaces   ",
        "日本語のテキスト と English, naïve café 😀",
        "a\n\n\nb",
        "x",
        "",
        "Write a haiku about autumn leaves " * 5,
    ]
    with np.errstate(invalid="ignore"):  # wordllama divides the empty text's zero vector by 0
        reference = np.nan_to_num(_load_wordllama(256).embed(texts, norm=True))
    assert np.allclose(embedder.embed(texts), reference, atol=1e-5)


def test_wordllama_counts_only_the_first_max_tokens() -> None:
    short = WordLlamaEmbedder(max_tokens=20)
    words = [f"topic{i}" for i in range(100)]
    a, b = " ".join(words[:60]), " ".join(words)
    assert np.allclose(short.embed([a]), short.embed([b]), atol=1e-6)
    assert not np.allclose(WordLlamaEmbedder().embed([a]), WordLlamaEmbedder().embed([b]))


def test_wordllama_truncated_dimension() -> None:
    vectors = make_embedder("wordllama:64").embed(["hello world"])
    assert vectors.shape == (1, 64)
    with pytest.raises(CheckbenchError, match="wordllama"):
        WordLlamaEmbedder(dim=100)


def test_importing_wordllama_leaves_logging_alone() -> None:
    code = (
        "import logging\n"
        "from checkbench.convbench.embed import WordLlamaEmbedder\n"
        "WordLlamaEmbedder()\n"
        "root = logging.getLogger()\n"
        "print(len(root.handlers), root.level)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["0", str(30)], result.stderr


def test_missing_backends_fail_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(CheckbenchError, match="pip install sentence-transformers"):
        SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    monkeypatch.delenv("CB_TEST_KEY", raising=False)
    with pytest.raises(CheckbenchError, match="CB_TEST_KEY"):
        OpenAIEmbedder("text-embedding-3-small", api_key_env="CB_TEST_KEY")
    with pytest.raises(InputError, match="unknown embedder"):
        make_embedder("glove")


GERMAN = {
    "algebra": [
        "Löse 3x + 5 = 20",
        "Berechne (x+1)^2 - x^2",
        "Vereinfache 2a + 3a = ?",
        "Bestimme y, wenn 4y - 2 = 10",
        "Ist 7x ≤ 21 für x = 3?",
        "Rechne 12 × 4 ÷ 3 aus",
    ],
    "garden": [
        "Wann pflanze ich Tomaten im Garten",
        "Welche Blumen mögen Schatten im Garten",
        "Wie oft gieße ich den Rasen im Sommer",
        "Wie schneide ich Rosen im Herbst richtig",
        "Welche Erde passt für Kräuter im Garten",
    ],
}


def test_a_cluster_in_the_form_of_math_is_kept_whatever_the_language(
    tmp_path: Path, embedder: WordLlamaEmbedder
) -> None:
    """German algebra questions hold no word of the (English and Chinese) math vocabulary:
    their cluster is kept by its notation; outside it, a message with notation is kept, and one
    naming the domain without any number is not."""
    from checkbench.convbench.forms import math_form

    path, rng = tmp_path / "german.jsonl", random.Random(1)
    with path.open("w") as handle:
        for n in range(120):
            topic = list(GERMAN)[n % 2]
            text = f"{rng.choice(GERMAN[topic])} bitte"
            handle.write(
                json.dumps({"id": f"{topic}-{n}", "messages": [{"role": "user", "content": text}]})
                + "\n"
            )
        extra = {
            "garden-x1": "Im Garten: ist 2x + 1 = 7 für x = 3",
            "garden-x2": "Im Garten die Algebra der Beete",
        }
        for key, text in extra.items():
            handle.write(
                json.dumps({"id": key, "messages": [{"role": "user", "content": text}]}) + "\n"
            )
    config = CONFIG.model_copy(update={"k": 2, "message_matches": 1})
    vocabulary = load_vocabulary("math")
    out = tmp_path / "assignments.jsonl"
    without = cluster_topics(iter_conversations(path), embedder, vocabulary, config)
    assert not any(c.kept for c in without.clusters)
    report = cluster_topics(
        iter_conversations(path), embedder, vocabulary, config, assignments=out, form=math_form
    )
    rows = {row.id: row for row in read_models(out, Assignment)}
    kept = {c.id for c in report.clusters if c.kept}
    assert {rows[f"algebra-{n}"].cluster for n in range(0, 120, 2)} == kept
    assert all(not rows[f"garden-{n}"].kept for n in range(1, 120, 2))
    assert [c.form_share for c in report.clusters if c.kept] == [1.0]
    assert rows["garden-x1"].kept and not rows["garden-x2"].kept
