"""A conversation on its way through the build, and how its text is shown to a model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checkbench.convbench.ingest import Conversation
from checkbench.convbench.segment import HAN
from checkbench.convbench.topic_report import Cluster
from checkbench.prompts import fence
from checkbench.steps.prompting import clip


@dataclass
class Candidate:
    """One conversation plus what the stages so far learnt about it."""

    conversation: Conversation
    cluster: Cluster | None = None
    instruction: str | None = None
    feedback: dict[int, str] = field(default_factory=dict)
    """message index -> "positive" | "negative" (messages that are not feedback are absent)."""

    @property
    def key(self) -> str:
        """The key of this candidate's stage records."""
        return self.conversation.id


def fenced_turn(conversation: Conversation, index: int, chars: int) -> str:
    """One message of the log, fenced and labelled with its index and role."""
    message = conversation.messages[index]
    return fence(f"message {index} ({message.role})", clip(message.content, chars))


def user_indices(conversation: Conversation) -> list[int]:
    """Indices of the non-blank user messages, in order."""
    return [
        i for i, m in enumerate(conversation.messages) if m.role == "user" and m.content.strip()
    ]


def language(text: str) -> str:
    """'zh' when Chinese characters make up at least a third of the text's letters, else 'en':
    the judge prompt language recorded in a built item's meta."""
    letters = sum(ch.isalpha() for ch in text)
    return "zh" if letters and len(HAN.findall(text)) * 3 >= letters else "en"


def provenance(conversation: Conversation) -> dict[str, Any]:
    """Where an item came from: the conversation, its file and line, the model that chatted."""
    return {
        "conversation_id": conversation.id,
        "file": conversation.source.path,
        "line": conversation.source.line,
        "model": conversation.model,
        "format": conversation.meta.get("format"),
        "language": conversation.language,
    }
