"""How to tell that an assistant reply concedes a point the user disputed: the marker lists.

FB-Bench curation looks for a later assistant turn that concedes: it apologises ("I'm sorry",
"抱歉") or, as most real replies do, admits the point without apologising ("you're right",
"good catch", "你说得对", "确实，", "是我疏忽了", "刚才的回答有误"). A reply that keeps its
answer ("I'm sorry, but the answer is still 4", "我理解你的疑问，但答案确实是 3") does not
concede, whatever polite words it opens with.

The rule, on the reply's first `OPENING_CHARS` characters (where such words sit; deeper in a
reply a marker is usually quoted text or generated dialogue):

1. A hold marker anywhere in the opening ("still correct", "I stand by", "仍然正确", "坚持")
   means the reply holds.
2. Otherwise the reply concedes at the first sentence that has a concession marker and no
   contrast word ("but", "however", "但", "不过"): "Sorry, but..." is a polite refusal.

Matching ignores case and reads curly apostrophes as straight ones. Users add
literal phrases from a file (`load_markers`): a line ``concede: PHRASE`` or ``hold: PHRASE``,
``#`` starting a comment. Precision and recall on a labelled sample of second replies are
measured in tests/convbench/test_markers.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from checkbench.convbench.segment import HAN_CHARS
from checkbench.errors import InputError
from checkbench.inputs import iter_input_lines

OPENING_CHARS = 300

EN_CONCEDE = [
    r"\bsorry\b(?! to hear)",
    r"\bapologi[sz]e\b",
    r"\bapologies\b",
    r"\bforgive me\b",
    r"\byou(?:'re| are) (?:absolutely |completely |quite |totally |so )?(?:right|correct)\b",
    r"\b(?:good|nice|great) catch\b",
    r"\bthanks?(?: you)? for (?:the correction|correcting|catching|spotting|noticing|flagging"
    r"|pointing (?:that |this |it )?out)",
    r"\bmy (?:mistake|bad|error|fault)\b",
    r"\bi was (?:wrong|mistaken|incorrect)\b",
    r"\bi stand corrected\b",
    r"\bi(?: have|'ve)? made (?:a|an) (?:mistake|error)\b",
    r"\bi (?:misread|misunderstood|miscalculated|misspoke|overlooked|forgot|missed|left out"
    r"|mixed up|confused)\b",
    r"\b(?:that|this|it) was (?:wrong|incorrect|a mistake|an error)\b",
    r"\bmy (?:previous|earlier|last|original|first) (?:answer|reply|response|calculation|code)"
    r" (?:was|is) (?:wrong|incorrect|mistaken)\b",
    r"\bcorrected\b",
    r"\bon second thought\b",
    r"\boops\b",
    r"^(?:understood|got it)\b",
]
"""English concession markers (regular expressions; case is ignored)."""

ZH_CONCEDE = [
    "抱歉|对不起|對不起|道歉|致歉|不好意思|请原谅|請原諒",
    "(?:你|您)(?:说|講|讲)?(?:得|的)(?:对|對|没错|沒錯|有道理)",
    "(?:你|您)是(?:对|正确)的",
    "^(?:是的|嗯|对|哦)?[，,、 ]*(?:确实|的确)",
    "(?:感谢|谢谢|多谢)(?:你|您)?的?(?:指正|纠正|提醒|指出)",
    "我(?:之前|刚才|前面)?(?:搞|弄|算|写|看|理解|记|说|答)错了?",
    "(?:你|您)指出的[^，。]{0,8}(?:是对的|没错|正确)",
    "是我(?:的)?(?:疏忽|错|失误|不对|没有注意)",
    "我(?:之前|刚才|上面|前面)?(?:漏|忽略|遗漏|忽视)了",
    "(?:之前|刚才|上面|前面|上一个|我)的?(?:回答|答案|计算|翻译|代码|说法)(?:中的[^，。]{0,10})?"
    "(?:有误|有问题|有错|不正确|不准确|是错的|错了)",
    "更正|纠正|修正",
    "重新(?:计算|算)",
    "^(?:明白了|了解了)",
]
"""Chinese concession markers (regular expressions)."""

EN_HOLD = [
    r"\bstill (?:correct|right|holds|stands|valid|the same)\b",
    r"\bremains? (?:correct|valid|the same|unchanged)\b",
    r"\b(?:answer|reply|response) stands\b",
    r"\bi stand by\b",
    r"\bi(?:'d| would) keep my answer\b",
    r"\b(?:the|my) (?:original|previous|earlier|first) (?:answer|reply|response|calculation)"
    r" (?:is|was) (?:correct|right|accurate)\b",
    r"\bis correct as (?:written|stated|given)\b",
    r"\b(?:a |that's a |this is a )?(?:common )?misconception\b",
    r"\bhas not changed\b",
]
"""English hold markers: the reply keeps its answer."""

ZH_HOLD = [
    "(?:仍然|依然|依旧|还是)(?:是|为)?(?:正确|对的|成立|没有问题)",
    "(?:答案|结果|回答)(?:仍然|依然|依旧)",
    "坚持",
    "(?:回答|答案|计算|说法|代码|结果)(?:并)?没有(?:问题|错)",
    "其实是(?:正确|对)的",
    "(?:你|您)的(?:观点|说法|理解|看法)(?:有误|不正确|是错误的|是错的)",
    "我的(?:回答|答案)(?:是)?(?:正确|对)的",
]
"""Chinese hold markers."""

EN_AFFIRM = [
    r"\b(?:is|was|remains) (?:correct|accurate|right|valid|true)\b",
    r"\bi can confirm\b",
    r"\bno (?:issues?|errors?|mistakes?|problems?)\b",
    r"\bnot (?:entirely |quite |exactly )?(?:correct|accurate|true|right)\b",
    r"\b(?:there is|there's) no (?:evidence|basis)\b",
]
"""English affirmations: the reply keeps its answer. They count only in a reply that does not
concede ("You're right, the answer is correct now" concedes)."""

ZH_AFFIRM = [
    "(?:是|为)(?:正确|准确|有效|对)的",
    "(?:不完全|并不|不)(?:正确|准确|对)",
    "确实是",
    "没有(?:问题|错误|语病|错)",
    "缺乏(?:依据|根据|证据)|没有(?:依据|根据|证据)",
]
"""Chinese affirmations."""

REFUSE = [
    r"\bi (?:can(?:no|')t|cannot|won't|will not|am unable to|'m unable to) (?:help|assist|"
    r"provide|create|write|do|comply|fulfil|fulfill)\b",
    "(?:不能|无法|不可以)(?:为您|为你|帮您|帮你|提供|创作|满足|协助|编写|生成)",
]
"""Refusals (English and Chinese): the reply declines the request, apology or not."""

CONTRAST = r"\b(?:but|however|although|though)\b|但|不过|可是|然而"
"""Words after which an apology or agreement turns into a polite refusal."""
_CONTRAST = re.compile(CONTRAST, re.IGNORECASE)

_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？\n]*")
_KINDS = ("concede", "hold")
_WORD_CHAR = re.compile(rf"(?![{HAN_CHARS}])[^\W_]")
Stance = Literal["concede", "hold"]


@dataclass(frozen=True)
class Markers:
    """Concession and hold markers: the built-in ones plus any the user added."""

    concede: tuple[str, ...] = tuple(EN_CONCEDE + ZH_CONCEDE)
    hold: tuple[str, ...] = tuple(EN_HOLD + ZH_HOLD)
    affirm: tuple[str, ...] = tuple(EN_AFFIRM + ZH_AFFIRM)
    refuse: tuple[str, ...] = tuple(REFUSE)

    @cached_property
    def _concede(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.concede), re.IGNORECASE)

    @cached_property
    def _hold(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.hold), re.IGNORECASE)

    @cached_property
    def _affirm(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.affirm), re.IGNORECASE)

    @cached_property
    def _refuse(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.refuse), re.IGNORECASE)

    def stance(self, reply: str, *, disputed: bool = False) -> Stance | None:
        """How a reply answers the user's turn before it (see `assess`)."""
        found = self.assess(reply, disputed=disputed)
        return found[0] if found else None

    def assess(self, reply: str, *, disputed: bool = False) -> tuple[Stance, str] | None:
        """The reply's stance and the marker that shows it, as written: "concede" when it
        admits the point (`concession`), "hold" when it keeps its answer: a hold marker or a
        refusal ("I can't help", "无法提供", apology or not), or without any admission an
        affirmation ("is correct", "是正确的") or a polite "sorry, but"; else None. With
        `disputed` (the user's turn is known to push back, as in FB-Bench's samples) a reply
        that does not concede holds (marker "")."""
        raw = reply[:OPENING_CHARS]
        opening = raw.replace("’", "'")
        if held := self._hold.search(opening) or self._refuse.search(opening):
            return "hold", raw[held.start() : held.end()]
        if conceded := self.concession(reply):
            return "concede", conceded
        for sentence in _SENTENCE.finditer(opening):
            if self._concede.search(sentence.group()) and _CONTRAST.search(sentence.group()):
                return "hold", raw[sentence.start() : sentence.end()].strip()
        if affirmed := self._affirm.search(opening):
            return "hold", raw[affirmed.start() : affirmed.end()]
        return ("hold", "") if disputed and reply.strip() else None

    def concession(self, reply: str) -> str | None:
        """The concession marker that opens `reply` as written there, or None when the reply
        holds or says neither."""
        raw = reply[:OPENING_CHARS]
        opening = raw.replace("’", "'")
        if self._hold.search(opening):
            return None
        for sentence in _SENTENCE.finditer(opening):
            text = sentence.group().strip()
            found = self._concede.search(text)
            if found and not _CONTRAST.search(text):
                start = sentence.start() + sentence.group().index(text) + found.start()
                return raw[start : start + len(found.group())]
        return None


def phrase_pattern(phrase: str) -> str:
    """A literal phrase as a pattern: runs of blanks match any blanks, and a phrase that starts
    or ends with a letter or digit (not a Han character) must start or end a word there."""
    words = phrase.replace("’", "'").split()
    pattern = r"\s+".join(map(re.escape, words))
    if _WORD_CHAR.match(words[0][0]):
        pattern = r"\b" + pattern
    if _WORD_CHAR.match(words[-1][-1]):
        pattern += r"\b"
    return pattern


def load_markers(path: str | Path | None) -> Markers:
    """The built-in markers, plus the phrases of a markers file when one is given."""
    if path is None:
        return Markers()
    added: dict[str, list[str]] = {"concede": [], "hold": []}
    for number, line in iter_input_lines(path):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        kind, colon, phrase = text.partition(":")
        if not colon or kind.strip() not in _KINDS or not phrase.strip():
            raise InputError(
                "a marker line is 'concede: PHRASE' or 'hold: PHRASE'", path=path, line=number
            )
        added[kind.strip()].append(phrase.strip())
    if not any(added.values()):
        raise InputError("markers file has no markers", path=path)
    return Markers(
        concede=(*EN_CONCEDE, *ZH_CONCEDE, *map(phrase_pattern, added["concede"])),
        hold=(*EN_HOLD, *ZH_HOLD, *map(phrase_pattern, added["hold"])),
    )
