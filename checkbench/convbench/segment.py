"""Words of a text in any script, for topic keywords and domain vocabularies.

Text outside Han characters is split into words the usual way: a letter, then letters, digits
or underscores (Latin, Cyrillic, Greek, Hangul and other space-separated scripts). Runs of Han
characters have no spaces between words, so they are segmented with jieba (loaded on the first
Han text: an English-only corpus never pays for it). jieba, not character n-grams, because
keywords are read by people and matched against vocabulary words: a dictionary segmenter gives
words (计算机, 方程), character bigrams give as many fragments across word boundaries (算机,
程的) as words. Vocabulary terms are added to jieba's dictionary, so a term is cut as one word
wherever it occurs.

Words are lowercased. Stop words (English and Chinese function words and chat words that say
how people ask rather than what about) are dropped, and so is a one-character word unless it is
a vocabulary term: most single characters are particles (的, 了) or variable names.

Not covered: Japanese kana and Thai are not segmented (a kana run counts as one word).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

from checkbench.errors import CheckbenchError

HAN_CHARS = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN = re.compile(f"[{HAN_CHARS}]")
HAN_RUN = re.compile(f"[{HAN_CHARS}]+")
_WORD = re.compile(rf"(?:(?![{HAN_CHARS}])[^\W\d_])(?:(?![{HAN_CHARS}])\w)*")

_CHAT_WORDS = """hi hello hey thanks thank ok okay sure yes want need like just know make use
using tell let able help does did way good new really im dont doesnt ive youre"""
_ZH_STOP_WORDS = """我们 你们 他们 她们 它们 咱们 自己 这个 那个 这些 那些 这样 那样 这种 那种 这里
那里 一个 一些 一下 一样 什么 怎么 怎样 怎么样 如何 为什么 为何 哪些 哪个 哪里 多少 是否 能否
可否 没有 不是 就是 还是 只是 但是 可是 不过 而且 并且 或者 以及 因为 所以 如果 虽然 然后 然而
于是 可以 能够 不能 不会 应该 需要 希望 觉得 认为 知道 告诉 请问 麻烦 帮忙 帮我 帮助 谢谢 感谢
你好 您好 好的 问题 内容 回答 下面 以下 如下 以上 上面 上述 下列 其中 其他 其它 所有 每个 各种
非常 比较 已经 现在 时候 之后 之前 里面 出来 起来 为了 关于 对于 根据 通过 按照 进行 使用 给出
得到 一点 一种 有些 有没有 是不是 能不能 可不可以 这句 这段 这道 那么 还有 以后 或是 等等"""


@cache
def stop_words() -> frozenset[str]:
    """Words never taken as keywords, unless the domain vocabulary lists them: scikit-learn's
    English stop words (imported here: reading a vocabulary needs no scikit-learn) and ours."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS | set(_CHAT_WORDS.split()) | set(_ZH_STOP_WORDS.split()))


def is_term(word: str) -> bool:
    """Whether `word` is a single word as `Segmenter.words` can yield it: one run of Han
    characters, or one letter-led word of another script."""
    return bool(HAN_RUN.fullmatch(word) or _WORD.fullmatch(word))


class Segmenter:
    """Splits texts into lowercased keyword candidates; `vocabulary` terms always count."""

    def __init__(self, vocabulary: Iterable[str] = ()) -> None:
        self.vocabulary = frozenset(vocabulary)
        self._stop = stop_words() - self.vocabulary
        self._jieba: Any = None

    def words(self, text: str) -> list[str]:
        """The text's words in order, without stop words and stray single characters."""
        found: list[str] = []
        position = 0
        lowered = text.lower()
        for run in HAN_RUN.finditer(lowered):
            found += _WORD.findall(lowered, position, run.start())
            found += self._segmenter().cut(run.group(), HMM=True)
            position = run.end()
        found += _WORD.findall(lowered, position)
        return [w for w in found if w not in self._stop and (len(w) > 1 or w in self.vocabulary)]

    def _segmenter(self) -> Any:
        if self._jieba is None:
            terms = frozenset(t for t in self.vocabulary if HAN_RUN.fullmatch(t))
            self._jieba = _load_jieba(terms)
        return self._jieba


@lru_cache(maxsize=4)
def _load_jieba(terms: frozenset[str]) -> Any:
    """A jieba tokenizer of its own (the module-level one is shared state), quiet, with the
    vocabulary's Han terms in its dictionary; loading takes a second or more, so the last few
    are kept."""
    try:
        import jieba
    except ImportError:
        raise CheckbenchError(
            "segmenting Chinese text needs jieba: pip install 'checkbench[build]'"
        ) from None
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for term in sorted(terms):
        tokenizer.add_word(term)
    return tokenizer
