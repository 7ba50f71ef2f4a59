"""FB-Bench-style curation rules on crafted conversations: concession selection, the token
approximation, and the parsing and weight normalisation of drafted samples (the markers
themselves are measured in test_build_markers)."""

from __future__ import annotations

import json
import math

import pytest

from checkbench.convbench.curate import (
    FEWER_THAN_TWO_REPLIES,
    NO_CONCESSION,
    TOO_LONG,
    Concession,
    approx_tokens,
    draft_answer,
    find_concession,
    normalise_weights,
    select,
)
from checkbench.convbench.decisions import Decision
from checkbench.convbench.ingest import Conversation, Source
from checkbench.convbench.markers import OPENING_CHARS, Markers
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.schema import Message
from checkbench.steps.answers import Unusable, parse_answer


def chat(*turns: tuple[str, str]) -> Conversation:
    return Conversation(
        id="c",
        messages=[Message(role=role, content=text) for role, text in turns],
        source=Source(path="log.jsonl", line=1),
    )


QUESTION = ("user", "What is the capital of Australia?")
WRONG = ("assistant", "Sydney.")
COMPLAINT = ("user", "That's wrong.")
MARKERS = Markers()


def choose(
    conversation: Conversation, settings: ConvBenchSettings | None = None
) -> Decision[Concession]:
    return select(conversation, settings or ConvBenchSettings(), MARKERS)


@pytest.mark.parametrize(
    "reply",
    [
        "I'm sorry, it is Canberra.",
        "I’m really sorry for the mistake: Canberra.",
        "I am so sorry. Canberra.",
        "I apologize for the confusion, it is Canberra.",
        "I apologise. Canberra.",
        "My apologies, Canberra is right.",
        "Apologies for the error: Canberra.",
        "Sorry about the confusion, it's Canberra.",
        "Please forgive me, Canberra.",
        "抱歉，答案是堪培拉。",
        "对不起，是堪培拉。",
        "不好意思，我说错了，是堪培拉。",
        "很抱歉给您带来困扰。",
        "我向您道歉。",
    ],
)
def test_later_apologies_in_english_and_chinese_are_selected(reply: str) -> None:
    conversation = chat(QUESTION, WRONG, COMPLAINT, ("assistant", reply))
    decision = choose(conversation)
    assert decision.kept
    assert decision.value is not None
    assert (decision.value.disputed, decision.value.complaint, decision.value.reply) == (1, (2,), 3)
    assert decision.value.marker in reply


@pytest.mark.parametrize(
    "reply",
    [
        "Canberra is the capital.",
        "No worries, the answer is Canberra.",
        "It is Canberra. " + "x" * OPENING_CHARS + " I'm sorry.",  # deep in the reply
    ],
)
def test_replies_that_do_not_open_by_conceding_are_not(reply: str) -> None:
    decision = choose(chat(QUESTION, WRONG, COMPLAINT, ("assistant", reply)))
    assert decision.reason == NO_CONCESSION


@pytest.mark.parametrize(
    ("reply", "marker"),
    [
        ("Sorry to hear that, but Sydney is right.", "is right"),
        ("I'm sorry, but the answer is still Sydney.", "I'm sorry, but"),
        ("The answer Sydney is correct as written.", "is correct"),
        ("我理解您的疑问，但答案确实是悉尼。", "确实是"),
        ("抱歉，我无法提供这类内容。", "无法提供"),
    ],
)
def test_replies_that_keep_their_answer_are_selected_as_response_maintenance(
    reply: str, marker: str
) -> None:
    decision = choose(chat(QUESTION, WRONG, COMPLAINT, ("assistant", reply)))
    assert decision.kept and decision.value is not None
    assert decision.value.scenario == "RM" and marker in decision.value.marker
    assert decision.record["scenario"] == "RM"


def test_an_apology_in_the_first_reply_does_not_count() -> None:
    first = ("assistant", "I'm sorry, I can't browse the web. Sydney?")
    conversation = chat(QUESTION, first, COMPLAINT, ("assistant", "It's Canberra."))
    assert choose(conversation).reason == NO_CONCESSION
    assert choose(chat(QUESTION, first)).reason == FEWER_THAN_TWO_REPLIES


def test_the_first_later_concession_wins_and_the_complaint_spans_the_user_turns_between() -> None:
    conversation = chat(
        QUESTION,
        WRONG,
        ("user", "Hm."),
        ("user", "Check again."),
        ("assistant", "I apologize: Canberra."),
        ("user", "And of Canada?"),
        ("assistant", "I'm sorry, Ottawa."),
    )
    concession = find_concession(conversation, MARKERS)
    assert concession is not None
    assert (concession.disputed, concession.complaint, concession.reply) == (1, (2, 3), 4)


def test_two_replies_in_a_row_without_a_user_turn_between_are_no_complaint() -> None:
    conversation = chat(QUESTION, WRONG, ("assistant", "I'm sorry, Canberra."))
    assert find_concession(conversation, MARKERS) is None


def test_token_approximation_counts_cjk_characters_and_words() -> None:
    assert approx_tokens("") == 0
    assert approx_tokens("抱歉答案") == 4
    # 3 words of 4/3 tokens each beat 14 letters / 4.
    assert approx_tokens("one two three") == 4
    # One long word: the character count wins (40 letters / 4).
    assert approx_tokens("a" * 40) == 10
    assert approx_tokens("抱歉 one two three") == 2 + 4


def test_conversations_over_the_token_limit_are_dropped() -> None:
    long_question = ("user", " ".join(["word"] * 300))
    conversation = chat(long_question, WRONG, COMPLAINT, ("assistant", "I'm sorry, Canberra."))
    words = 300 + 1 + 2 + 3
    settings = ConvBenchSettings(max_tokens_approx=100)
    decision = choose(conversation, settings)
    assert decision.reason == TOO_LONG
    assert decision.record["tokens"] >= words
    assert choose(conversation, ConvBenchSettings(max_tokens_approx=words * 2)).kept


def test_weights_are_normalised_to_sum_to_one() -> None:
    weights = normalise_weights([2, 1, 1])
    assert weights == [0.5, 0.25, 0.25]
    assert math.isclose(sum(normalise_weights([0.3, 0.3, 0.3])), 1.0)
    assert normalise_weights([0.2, 0.8]) == [0.2, 0.8]


@pytest.mark.parametrize("weights", [[0.5, 0], [1, -1], [float("nan"), 1], [True, 1], ["0.5", 1]])
def test_weights_that_are_not_positive_numbers_are_unusable(weights: list) -> None:
    with pytest.raises(Unusable, match="weight 1|weight 2"):
        normalise_weights(weights)


def _draft(**changes: object) -> str:
    sample = {
        "reason": "The reply named the wrong city.",
        "deficiency": "factual error",
        "feedback_type": "Pointing Out Errors",
        "checklist": [
            {"text": "Does it name Canberra?", "weight": 3},
            {"text": "Does it admit the mistake?", "weight": 1},
            {"text": "does it name canberra?", "weight": 5},
        ],
    }
    return json.dumps({**sample, **changes})


def test_a_draft_is_parsed_with_repeats_dropped_and_weights_normalised() -> None:
    settings = ConvBenchSettings(min_checks=2, max_checks=3)
    draft = parse_answer(_draft(), draft_answer(settings)).draft()
    assert draft.deficiency == "Factual Error"
    assert draft.task is None  # not given: no task tag
    assert draft.checks == [("Does it name Canberra?", 0.75), ("Does it admit the mistake?", 0.25)]
    assert draft.weight_sum == 4


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"feedback_type": "Misinformation"}, "feedback_type"),
        ({"task": "Cooking"}, "task"),
        ({"reason": "  "}, "reason"),
        ({"checklist": [{"text": "Only one?", "weight": 1}]}, "at least 2 entries, not 1"),
        (
            {"checklist": [{"text": "A?", "weight": 1}, {"text": "a?", "weight": 1}]},
            "between 2 and 3",
        ),
        ({"checklist": [{"text": "A?", "weight": 1}, {"text": "B?", "weight": 0}]}, "weight 2"),
        ({"checklist": "Does it name Canberra?"}, "list"),
    ],
)
def test_unusable_drafts_say_why(changes: dict, problem: str) -> None:
    with pytest.raises(Unusable, match=problem):
        parse_answer(_draft(**changes), draft_answer(ConvBenchSettings(min_checks=2, max_checks=3)))


def test_a_draft_names_its_task_when_the_model_gives_one() -> None:
    settings = ConvBenchSettings(min_checks=2, max_checks=3)
    draft = parse_answer(_draft(task="knowledge q&a"), draft_answer(settings)).draft()
    assert draft.task == "Knowledge Q&A"
    assert parse_answer(_draft(task=None), draft_answer(settings)).draft().task is None
