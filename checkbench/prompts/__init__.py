"""Versioned prompt templates, one file each, and fencing of untrusted text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

_DIR = Path(__file__).parent
_SECTION = re.compile(r"^### (system|user)\s*$", re.M)


@dataclass(frozen=True)
class Prompt:
    """A prompt file: a version, a fixed system part and a user template with $placeholders."""

    name: str
    version: str
    system: str
    user: Template

    @property
    def tag(self) -> str:
        """Name and version, recorded with every verdict the prompt produced."""
        return f"{self.name}@{self.version}"

    def render(self, **values: str) -> str:
        return self.user.substitute(**values)


@cache
def load_prompt(name: str) -> Prompt:
    """Read `prompts/NAME.txt`: a `version:` line, then `### system` and `### user` sections."""
    text = (_DIR / f"{name}.txt").read_text(encoding="utf-8")
    header, _, body = text.partition("\n")
    if not header.startswith("version:"):
        raise ValueError(f"prompt {name} must start with a version line")
    parts = _SECTION.split(body)
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    return Prompt(
        name, header.split(":", 1)[1].strip(), sections["system"], Template(sections["user"])
    )


def fence(label: str, text: str) -> str:
    """Wrap untrusted text in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0) if "`" in text else 0
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{label}\n{text}\n{ticks}"
