"""Turn items and responses into judge prompt text, with all untrusted text fenced."""

from __future__ import annotations

from collections.abc import Sequence

from checkbench.prompts import fence
from checkbench.schema import Check, Message


def conversation(messages: Sequence[Message]) -> str:
    """Each turn as a fenced block labelled with its role and position."""
    return "\n".join(fence(f"{m.role} (turn {i})", m.content) for i, m in enumerate(messages))


def checklist(checks: Sequence[Check]) -> str:
    """One line per check: its id and text (checks are benchmark data, fenced as a block)."""
    return fence("checklist", "\n".join(f"{c.id}: {c.text}" for c in checks))


def reference(
    text: str | None, label: str = "reference reply (a guide, need not be matched)"
) -> str:
    return f"\n{fence(label, text)}\n" if text else ""


def language_of(meta_language: str | None, setting: str) -> str:
    """The prompt language: forced by the setting, else the item's, else English."""
    if setting != "auto":
        return setting
    return "zh" if meta_language == "zh" else "en"
