"""Conv-to-Bench topics on logs in Chinese and English: word segmentation, vocabulary terms in
any script, the embedder for Chinese text, and `build --stop-after topics`."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from checkbench.convbench.embed import MultilingualEmbedder, WordLlamaEmbedder, make_embedder
from checkbench.convbench.ingest import iter_conversations
from checkbench.convbench.segment import Segmenter
from checkbench.convbench.topic_report import TopicConfig
from checkbench.convbench.topics import cluster_topics
from checkbench.convbench.vocab import BUILTIN, load_vocabulary
from checkbench.errors import InputError
from tests.conftest import ROOT, run_cli

# Three Chinese topics, each a pool of request fragments (our own text); a request joins two.
ZH_POOLS = {
    "math": [
        "解这个一元二次方程",
        "求函数的导数",
        "计算三角形的面积",
        "这道概率题怎么算",
        "证明这个几何定理",
        "求等差数列的前十项和",
        "化简这个分数",
        "求圆的周长和半径",
        "这个不等式的解集是什么",
        "矩阵的行列式怎么求",
    ],
    "coding": [
        "这段代码报错了",
        "用Python写一个排序函数",
        "怎么调试这个程序",
        "数据库查询太慢",
        "这个循环为什么死循环",
        "帮我实现一个链表",
        "正则表达式匹配邮箱",
        "前端页面怎么部署到服务器",
        "递归函数栈溢出",
        "这个接口返回的数据格式不对",
    ],
    "cooking": [
        "红烧肉怎么做",
        "蛋糕烤箱温度多少",
        "饺子馅怎么调",
        "米饭煮得太硬",
        "番茄炒蛋的做法",
        "炖鸡汤要放什么调料",
        "面包发酵要多久",
        "怎么腌制牛排",
        "素食晚餐推荐",
        "火锅底料怎么炒",
    ],
}
OPENERS = ["请问", "你好，", "帮我看看：", "我想知道", ""]
PER_TOPIC = 60
FB_BENCH = ROOT.parent / "shared" / "data" / "fb-bench" / "fb_bench_dataset_v3.json"
"""The released FB-Bench samples, beside the project (never copied into it)."""


def zh_request(rng: random.Random, topic: str) -> str:
    return rng.choice(OPENERS) + "，".join(rng.sample(ZH_POOLS[topic], 2)) + "？"


@pytest.fixture(scope="module")
def zh_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """180 Chinese chats in three topics, interleaved; each id names its topic."""
    rng = random.Random(11)
    path = tmp_path_factory.mktemp("zh") / "zh.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(PER_TOPIC * len(ZH_POOLS)):
            topic = list(ZH_POOLS)[i % len(ZH_POOLS)]
            messages = [
                {"role": "user", "content": zh_request(rng, topic)},
                {"role": "assistant", "content": "好的。"},
            ]
            record = {"id": f"{topic}-{i}", "messages": messages}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def test_chinese_is_segmented_into_words_and_vocabulary_terms_stay_whole() -> None:
    words = Segmenter().words("与网络相连的计算机常称为主机")
    assert "计算机" in words and "主机" in words and "网络" in words
    assert all(len(word) <= 3 for word in words)  # words, not the whole clause
    assert "的" not in words  # a stray single character
    custom = Segmenter({"计算机常", "求"}).words("求与网络相连的计算机常称为主机")
    assert "计算机常" in custom and "求" in custom  # vocabulary terms, however long or short


def test_mixed_text_keeps_english_words_and_drops_stop_words() -> None:
    words = Segmenter({"r"}).words("请用 Python 的 pandas 读取 CSV 文件，然后用 R 画图")
    assert {"python", "pandas", "csv", "r", "读取", "文件"} <= set(words)
    assert "然后" not in words and "的" not in words


def test_vocabulary_terms_in_any_script_and_length(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("求\n方程  # equations\nR\nΣύνολο\n", encoding="utf-8")
    assert load_vocabulary(path) == {"求", "方程", "r", "σύνολο"}
    path.write_text("方程\n解 方程\n", encoding="utf-8")
    with pytest.raises(InputError, match="must be one word") as info:
        load_vocabulary(path)
    assert (info.value.path, info.value.line) == (str(path), 2)


def test_every_builtin_domain_has_chinese_terms() -> None:
    for domain, terms in BUILTIN.items():
        chinese = {t for t in terms if "\u4e00" <= t[0] <= "\u9fff"}
        assert len(chinese) >= 50, domain


def _separation(vectors: np.ndarray, labels: list[str]) -> tuple[float, float]:
    """Share of texts whose nearest other text has their topic, and the mean similarity
    within topics minus the mean across them."""
    sims = vectors @ vectors.T
    same = np.equal.outer(labels, labels)
    off_diagonal = ~np.eye(len(labels), dtype=bool)
    np.fill_diagonal(sims, -np.inf)
    nearest = np.mean([labels[j] == labels[i] for i, j in enumerate(sims.argmax(axis=1))])
    np.fill_diagonal(sims, 0)
    gap = sims[same & off_diagonal].mean() - sims[~same].mean()
    return float(nearest), float(gap)


def test_chinese_same_topic_requests_embed_closer_with_the_default_embedder(
    zh_log: Path,
) -> None:
    conversations = list(iter_conversations(zh_log))
    texts = [c.first_user_message for c in conversations]
    labels = [c.id.split("-")[0] for c in conversations]
    auto = make_embedder("auto")
    assert isinstance(auto, MultilingualEmbedder)
    auto.fit(texts)
    assert auto.reads_han and "han-chars" in auto.name
    nearest, gap = _separation(auto.embed(texts), labels)
    assert nearest >= 0.95 and gap > 0.1


@pytest.mark.skipif(not FB_BENCH.is_file(), reason="the FB-Bench release is not beside the project")
def test_on_real_chinese_queries_character_ngrams_beat_wordllama() -> None:
    """Why the default embedder routes Han text away from wordllama: on the 591 FB-Bench
    queries (mostly Chinese), the nearest other query shares the task type far more often."""
    samples = json.loads(FB_BENCH.read_text(encoding="utf-8"))
    texts = [sample["user_query"][:2000] for sample in samples]
    labels = [sample["task_type"] for sample in samples]
    auto = make_embedder("auto")
    assert isinstance(auto, MultilingualEmbedder)
    auto.fit(texts)
    auto_nearest, _ = _separation(auto.embed(texts), labels)
    word_nearest, _ = _separation(WordLlamaEmbedder().embed(texts), labels)
    assert auto_nearest >= word_nearest + 0.15


def test_english_rows_are_wordllamas_when_the_sample_has_no_chinese() -> None:
    english = ["sort a list in python", "a poem about the sea", "solve x + 2 = 5"]
    auto = make_embedder("auto")
    assert isinstance(auto, MultilingualEmbedder)
    auto.fit(english)
    assert not auto.reads_han
    np.testing.assert_array_equal(auto.embed(english), WordLlamaEmbedder().embed(english))


def test_chinese_topics_are_found_named_in_words_and_filtered(zh_log: Path) -> None:
    report = cluster_topics(
        iter_conversations(zh_log),
        make_embedder("auto"),
        BUILTIN["math"],
        TopicConfig(k=3, chunk_size=64),
    )
    kept = [c for c in report.clusters if c.kept]
    assert len(kept) == 1 and kept[0].size == PER_TOPIC and report.kept == PER_TOPIC
    fragments = "".join(ZH_POOLS["math"])
    assert all(word in fragments for word in kept[0].keywords)
    assert {"方程", "导数", "面积"} & set(kept[0].matched)
    assert all(len(opener) <= 100 and opener[:2] for opener in kept[0].openers)
    assert len(kept[0].openers) == 3 and any(f in kept[0].openers[0] for f in ZH_POOLS["math"])


def test_stop_after_topics_prints_clusters_and_writes_nothing(zh_log: Path, tmp_path: Path) -> None:
    result = run_cli(
        "convbench", "build", str(zh_log), "--domain", "math", "--k", "3", "--stop-after", "topics",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "3 topic clusters of 180 conversations" in result.stdout
    assert result.stdout.count("keywords:") == 3 and result.stdout.count("  > ") == 9
    vocabulary = "".join(result.stdout.split()).split("(inthedomain'svocabulary:")[1:]
    assert any("方程" in words or "导数" in words for words in vocabulary)  # named, not starred
    assert "*" not in result.stdout
    assert "60 of 180 conversations in kept clusters; no model called, nothing written" in (
        " ".join(result.stdout.split())
    )
    assert list(tmp_path.iterdir()) == []


def test_a_build_needs_out_and_bench_unless_it_stops_after_topics(
    zh_log: Path, tmp_path: Path
) -> None:
    result = run_cli("convbench", "build", str(zh_log), "--domain", "math", cwd=tmp_path)
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "error: field 'out': --out is required (unless --stop-after topics)"
    )
    assert list(tmp_path.iterdir()) == []
