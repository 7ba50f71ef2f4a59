"""Placeholders, echoed prompts and near-duplicates within an item, from the texts alone."""

from __future__ import annotations

import numpy as np
import pytest

from checkbench.audit.texts import placeholder_reason, text_flags
from checkbench.errors import CheckbenchError


@pytest.mark.parametrize("text", ["<yes/no question>", "...", "…", "TODO", "[check]", " ? "])
def test_placeholders_are_named(text: str) -> None:
    assert placeholder_reason(text, None) == f"placeholder text {text.strip()!r}"


def test_an_echoed_prompt_is_named_and_a_real_check_is_not() -> None:
    prompt = "Translate 'good morning' into French."
    assert placeholder_reason("translate 'Good morning' into French", prompt) == (
        "echoes the item's prompt"
    )
    assert placeholder_reason("Does it answer 'bonjour'?", prompt) is None


def _flags(texts: list[str], position: list[int], **kwargs: object) -> list[int]:
    found = text_flags(np.array(position), texts, [None] * len(texts), similarity=0.9, **kwargs)
    return found.duplicate_of.tolist()


def test_a_near_duplicate_names_the_earlier_check_of_its_item() -> None:
    texts = [
        "Does it give the year 1969?",
        "Does it name the astronaut?",
        "Does it give the year 1969 ?",
        "Does it give the year 1969?",  # same text, another item
    ]
    assert _flags(texts, [0, 0, 0, 1], backend="ngrams") == [0, 0, 1, 0]


def test_checks_that_differ_by_a_negation_are_not_duplicates() -> None:
    texts = ["如果认同用户的反馈,回答是否认为结果是2", "如果不认同用户的反馈,回答是否认为结果是2"]
    assert _flags(texts, [0, 0], backend="ngrams") == [0, 0]
    texts = ["Does it say the answer is 5?", "Does it not say the answer is 5?"]
    assert _flags(texts, [0, 0], backend="ngrams") == [0, 0]


def test_auto_takes_ngrams_for_chinese_and_the_given_embedding_otherwise() -> None:
    calls: list[int] = []

    def embed(texts: object) -> np.ndarray:
        calls.append(1)
        return np.array([[1.0, 0.0], [1.0, 0.01]])

    chinese = text_flags(
        np.array([0, 0]),
        ["回答是否正确", "回答是否道歉"],
        [None, None],
        similarity=0.9,
        embedder=embed,
    )
    assert chinese.backend == "ngrams" and not calls
    english = text_flags(
        np.array([0, 0]),
        ["Is it right?", "Is it kind?"],
        [None, None],
        similarity=0.9,
        embedder=embed,
    )
    assert english.backend == "wordllama" and calls
    assert english.duplicate_of.tolist() == [0, 1]


def test_wordllama_without_the_build_extra_says_what_to_install() -> None:
    with pytest.raises(CheckbenchError, match="build extra"):
        text_flags(np.array([0]), ["x"], [None], similarity=0.9, backend="wordllama")
