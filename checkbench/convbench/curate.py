"""FB-Bench-style curation: mine logs for replies the user disputed and the assistant then
conceded or held, and draft feedback-benchmark items from them with a model, each in its
FB-Bench scenario: a concession makes an error-correction (EC) item, a reply that keeps its
answer a response-maintenance (RM) item.

Selection (rules, no model): a conversation qualifies when an assistant turn other than the
first opens with a stance (`markers.Markers.assess`): it concedes (an apology or an admission,
English or Chinese, and not a polite refusal) or it holds (a hold marker, an affirmation, a
refusal, a polite "sorry, but"), and the whole conversation is under the token limit. The
reply the user disputed is the assistant turn before it; the user messages between the two are
the user's feedback, taken as written.

Token counts are approximate, so that selection needs no tokenizer: each CJK character (Han,
kana, Hangul) counts as one token, and the rest of the text as the larger of 4/3 tokens per
word (a run of letters or digits) and one token per 4 characters, which tracks common BPE
tokenizers on English prose and on code.

Drafting (one model call per conversation): the dissatisfaction reason, the deficiency type,
the type of the user's feedback, the task type when the model can tell, and a weighted
checklist. The item is the log up to and including the user's real feedback (FB-Bench's
authors simulated a detailed feedback; a small model asked to do that tends to write a label,
and the log's own words are what people send). Weights must be positive numbers; when they do
not add up to 1 they are scaled to do so and the original sum is kept in the item's meta. A
question repeated word for word counts once, with its first weight.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache, partial
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, StrictFloat

from checkbench.convbench.candidate import Candidate, fenced_turn, language, provenance
from checkbench.convbench.checklist import ONLY_JUNK, distinct_texts
from checkbench.convbench.decisions import BuildStages, Decision, failure
from checkbench.convbench.ingest import Conversation
from checkbench.convbench.junk import sift
from checkbench.convbench.markers import Markers
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.schema import WEIGHT_TOLERANCE, Check, Item
from checkbench.steps.answers import Answer, Unusable, answer_model, choice, listing, text

_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W_]+")

FEWER_THAN_TWO_REPLIES = "fewer than two assistant turns"
NO_CONCESSION = "neither a concession nor a hold in a later assistant turn"
TOO_LONG = "over the token limit"

DEFICIENCIES = (
    "Not Following Instructions",
    "Logical Error",
    "Incomplete Answer",
    "Factual Error",
    "Unprofessional Answer",
)
FEEDBACK_TYPES = (
    "Pointing Out Errors",
    "Clarifying Intent",
    "Raising Objections",
    "Detailed Explanation",
    "Hinting Guidance",
    "Simple Questioning",
)
"""The FB-Bench feedback types of the error-correction scenario."""
RM_FEEDBACK_TYPES = (
    "Misinformation",
    "Credibility Support",
    "Unreasonable Requests",
    "Simple Questioning",
)
"""The FB-Bench feedback types of the response-maintenance scenario."""
EC, RM = "EC", "RM"
SCENARIO_OF = {"concede": EC, "hold": RM}
"""The FB-Bench scenario of a reply's stance."""
TASKS = (
    "Mathematics",
    "Reasoning",
    "Coding",
    "Text Creation",
    "Text Error Correction",
    "Text Translation",
    "Text Extraction",
    "Knowledge Q&A",
)
"""The FB-Bench task types (the `task` tag its scoring groups by)."""
_CHOICE_CHARS = sum(max(map(len, options)) for options in (DEFICIENCIES, FEEDBACK_TYPES, TASKS))
_OUTCOME = {
    EC: "The assistant then conceded (the sample is an error-correction one: a good next reply "
    "corrects the disputed reply).",
    RM: "The assistant then kept its answer (the sample is a response-maintenance one: the "
    "user's pushback was wrong or unreasonable, and a good next reply keeps the answer and "
    'says why; the deficiency is then null and the feedback type one of "Misinformation", '
    '"Credibility Support", "Unreasonable Requests", "Simple Questioning").',
}


def approx_tokens(text: str) -> int:
    """Approximate token count (see the module docstring)."""
    wide = len(_WIDE.findall(text))
    rest = _WIDE.sub(" ", text)
    words = len(_WORD.findall(rest))
    letters = len(rest) - rest.count(" ")
    return wide + max(math.ceil(words * 4 / 3), math.ceil(letters / 4))


@dataclass(frozen=True)
class Concession:
    """Where a conversation turns: the disputed reply, the user's feedback, the reply that
    conceded (scenario EC) or held (RM), and the marker that shows it."""

    disputed: int
    complaint: tuple[int, ...]
    reply: int
    marker: str
    scenario: str = EC


def find_concession(conversation: Conversation, markers: Markers) -> Concession | None:
    """The first assistant turn after the first that follows a user message and concedes or
    holds."""
    messages = conversation.messages
    replies = [i for i, m in enumerate(messages) if m.role == "assistant"]
    for before, index in zip(replies, replies[1:], strict=False):
        complaint = tuple(
            i
            for i in range(before + 1, index)
            if messages[i].role == "user" and messages[i].content.strip()
        )
        found = markers.assess(messages[index].content) if complaint else None
        if found:
            stance, marker = found
            return Concession(before, complaint, index, marker, SCENARIO_OF[stance])
    return None


def select(
    conversation: Conversation, settings: ConvBenchSettings, markers: Markers
) -> Decision[Concession]:
    """Keep a conversation with a concession in a later assistant turn, under the token limit."""
    if sum(m.role == "assistant" for m in conversation.messages) < 2:
        return Decision.drop(FEWER_THAN_TWO_REPLIES)
    concession = find_concession(conversation, markers)
    if concession is None:
        return Decision.drop(NO_CONCESSION)
    tokens = sum(approx_tokens(m.content) for m in conversation.messages)
    if tokens > settings.max_tokens_approx:
        return Decision.drop(TOO_LONG, tokens=tokens, limit=settings.max_tokens_approx)
    return Decision.keep(
        concession,
        marker=concession.marker,
        reply=concession.reply,
        scenario=concession.scenario,
        tokens=tokens,
    )


# ---------------------------------------------------------------- drafting


class Draft(BaseModel):
    """A model's draft of one feedback sample; weights already sum to 1."""

    reason: str
    deficiency: str | None
    feedback_type: str
    task: str | None
    checks: list[tuple[str, float]]
    weight_sum: float
    """The sum of the weights as the model wrote them."""


def normalise_weights(weights: list[Any]) -> list[float]:
    """Weights scaled to sum to 1; each must be a finite number above 0."""
    if not weights:
        raise Unusable("the checklist is empty")
    for number, weight in enumerate(weights, start=1):
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise Unusable(f"checklist weight {number} is not a number")
        if not math.isfinite(weight) or weight <= 0:
            raise Unusable(f"checklist weight {number} must be above 0")
    total = float(sum(weights))
    return [float(weight) / total for weight in weights]


class DraftAnswer(Answer):
    """A model's draft of one feedback sample, as written (see `draft_answer`)."""

    reason: str
    deficiency: str | None = None
    feedback_type: str
    task: str | None
    checklist: list[Any]

    def draft(self) -> Draft:
        """The draft with its weights scaled to sum to 1."""
        texts = [entry.text for entry in self.checklist]
        weights = [entry.weight for entry in self.checklist]
        return Draft(
            reason=self.reason,
            deficiency=self.deficiency,
            feedback_type=self.feedback_type,
            task=self.task,
            checks=list(zip(texts, normalise_weights(weights), strict=True)),
            weight_sum=float(sum(weights)),
        )


def _usable_weights(entries: list[Any]) -> list[Any]:
    normalise_weights([entry.weight for entry in entries])
    return entries


@cache
def draft_answer(settings: ConvBenchSettings, scenario: str = EC) -> type[DraftAnswer]:
    """A draft with `min_checks` to `max_checks` distinct questions (a repeat, ignoring case,
    is dropped with its weight) whose weights are numbers above 0; the task may be null, and
    in a response-maintenance draft the deficiency too (the reply was right)."""
    low, high = settings.min_checks, settings.max_checks
    question = answer_model(
        "Question", text=text(settings.check_chars, min_chars=1), weight=StrictFloat
    )
    checklist = Annotated[
        listing(question, min_items=low, max_items=high),
        AfterValidator(partial(distinct_texts, "checklist questions", low, high)),
        AfterValidator(_usable_weights),
    ]
    return answer_model(
        "Draft",
        DraftAnswer,
        reason=text(settings.reason_chars, min_chars=1),
        deficiency=choice(DEFICIENCIES) if scenario == EC else (choice(DEFICIENCIES) | None, None),
        feedback_type=choice(FEEDBACK_TYPES if scenario == EC else RM_FEEDBACK_TYPES),
        task=(choice(TASKS) | None, None),
        checklist=checklist,
    )


async def draft(
    build: BuildStages, candidate: Candidate, concession: Concession
) -> Decision[Draft]:
    """Ask the model to draft the sample for one selected conversation."""
    settings = build.settings
    conversation = candidate.conversation
    context = "\n".join(
        fenced_turn(conversation, index, settings.max_user_chars)
        for index in range(concession.disputed + 1)
    )
    complaint = "\n".join(
        fenced_turn(conversation, index, settings.max_user_chars) for index in concession.complaint
    )
    answer = await build.ask(
        "build_fb_draft",
        {
            "context": context,
            "complaint": complaint,
            "concession": fenced_turn(conversation, concession.reply, settings.reply_chars),
            "outcome": _OUTCOME[concession.scenario],
            "min_checks": str(settings.min_checks),
            "max_checks": str(settings.max_checks),
        },
        draft_answer(settings, concession.scenario),
        max_tokens=settings.tokens_for(settings.reason_chars + _CHOICE_CHARS)
        + settings.checklist_tokens,
    )
    if answer.value is None:
        return failure(answer)
    sample = answer.value.draft()
    kept, junk = sift([check for check, _ in sample.checks], "build_fb_draft")
    if not kept:
        return Decision.drop(ONLY_JUNK, junk=junk, attempts=answer.attempts)
    if junk:
        checks = [sample.checks[position] for position in kept]
        weights = normalise_weights([weight for _, weight in checks])
        sample = sample.model_copy(
            update={
                "checks": [(check, w) for (check, _), w in zip(checks, weights, strict=True)],
                "weight_sum": sample.weight_sum * sum(weight for _, weight in checks),
            }
        )
    return Decision.keep(sample, draft=sample.model_dump(), junk=junk, attempts=answer.attempts)


def feedback_language(conversation: Conversation, concession: Concession) -> str:
    """The language of the user's feedback ('zh' or 'en'), or of the first user message when
    the feedback has no letters ("??", "!!!")."""
    feedback = " ".join(conversation.messages[i].content for i in concession.complaint)
    if any(ch.isalpha() for ch in feedback):
        return language(feedback)
    return language(conversation.first_user_message)


def feedback_item(
    candidate: Candidate, concession: Concession, sample: Draft, tags: dict[str, list[str]]
) -> Item:
    """The benchmark item: the log up to and including the user's feedback on the disputed
    reply; the checks cite the last feedback message."""
    conversation = candidate.conversation
    messages = conversation.messages[: concession.reply]
    source = f"feedback:{concession.complaint[-1]}"
    checks = [
        Check(id=f"c{n}", text=text, weight=weight, source=source)
        for n, (text, weight) in enumerate(sample.checks, start=1)
    ]
    curation: dict[str, Any] = {
        "reason": sample.reason,
        "concession": {"message": concession.reply, "marker": concession.marker},
        "stance": "concede" if concession.scenario == EC else "hold",
        "complaint_messages": list(concession.complaint),
        "disputed_message": concession.disputed,
    }
    if not math.isclose(sample.weight_sum, 1.0, abs_tol=WEIGHT_TOLERANCE):
        curation["weights_normalised_from"] = sample.weight_sum
    task = {"task": [sample.task]} if sample.task else {}
    deficiency = {"deficiency": [sample.deficiency]} if sample.deficiency else {}
    return Item(
        id=conversation.id,
        messages=messages,
        checklist=checks,
        rule="weighted",
        tags={
            "scenario": [concession.scenario],
            **task,
            "feedback_type": [sample.feedback_type],
            **deficiency,
            **tags,
        },
        meta={
            "language": feedback_language(conversation, concession),
            "curation": curation,
            "provenance": provenance(conversation),
        },
    )
