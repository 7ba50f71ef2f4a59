"""Junk in what a build model wrote: a check or an instruction that is a placeholder ("<yes/no
question>", "...") or echoes the prompt's own wording instead of saying something about the
conversation. Junk is dropped, counted by reason in the build report and kept in the stage's
decision record with its reason, never passed on as a requirement or a task.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from checkbench.prompts import load_prompt

PLACEHOLDER = "placeholder"
ECHO = "echoes the prompt"
_WORD = re.compile(r"\w+")
_SHINGLE = 3
"""Words per shingle compared with the prompt's."""
ECHO_SHARE = 0.8
"""A text whose word shingles are at least this share of the prompt's echoes it."""


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _shingles(words: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + _SHINGLE]) for i in range(len(words) - _SHINGLE + 1)}


@cache
def prompt_shingles(name: str) -> frozenset[tuple[str, ...]]:
    """The word shingles of a prompt's fixed wording (system part and user template)."""
    prompt = load_prompt(name)
    return frozenset(_shingles(_words(f"{prompt.system}\n{prompt.user.template}")))


def is_placeholder(text: str) -> bool:
    """A text that holds nothing: no letter or digit ("...", "?"), or a whole text in angle
    brackets as prompts write their slots ("<yes/no question>")."""
    stripped = text.strip()
    if not any(ch.isalnum() for ch in stripped):
        return True
    return stripped.startswith("<") and stripped.endswith(">")


def junk_reason(text: str, prompt: str) -> str | None:
    """Why `text`, written in answer to the prompt named `prompt`, is junk; None when it is not.
    Texts of fewer than three words are never taken for an echo."""
    if is_placeholder(text):
        return PLACEHOLDER
    own = _shingles(_words(text))
    if own and len(own & prompt_shingles(prompt)) >= ECHO_SHARE * len(own):
        return ECHO
    return None


def sift(texts: Sequence[str], prompt: str) -> tuple[list[int], list[dict[str, str]]]:
    """The positions of the texts to keep, and the junk as {"text", "reason"} records."""
    kept, junk = [], []
    for position, text in enumerate(texts):
        reason = junk_reason(text, prompt)
        if reason is None:
            kept.append(position)
        else:
            junk.append({"text": text, "reason": reason})
    return kept, junk
