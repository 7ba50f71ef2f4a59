"""Helpers for the build tests: the shipped test logs, and an OpenAIServer whose replies depend on
the request (which build stage asks, about which conversation), so scripted runs do not
depend on the order in which concurrent requests arrive."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from checkbench.prompts import load_prompt
from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import ROOT

LOGS_DIR = ROOT / "tests" / "data" / "logs"
LOGS = [LOGS_DIR / f"{name}.jsonl" for name in ("openai", "sharegpt", "lmsys", "wildchat")]

MARKERS = {
    "oa-sort": "'age' key",
    "oa-poem": "autumn leaves",
    "oa-regex": "matches email",
    "sg-sql": "highest total order",
    "sg-bread": "banana bread",
    "sg-debounce": "debounce a function",
    "lm-bash": "bash script",
    "lm-lisbon": "Lisbon",
    "lm-rust": "in Rust",
    "wc-pandas": "'date' column",
    "wc-palindrome": "回文",
    "wc-tomato": "tomato",
}
"""Conversation id -> a phrase of its first user message, to tell whom a request is about."""

STAGES = {
    load_prompt(f"build_{name}").system: name
    for name in ("domain", "instruction", "quality", "feedback", "checklist", "fb_draft")
}
STAGES[load_prompt("checklist_judge_en").system] = "judge"
STAGES[load_prompt("checklist_judge_zh").system] = "judge"


class Request:
    """One request the stub received, with what the routes need to know about it."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.messages = body.get("messages", [])
        first = self.messages[0]["content"] if self.messages else ""
        self.stage = STAGES.get(first, "candidate")
        self.text = self.messages[1]["content"] if len(self.messages) > 1 else first
        self.reask = len(self.messages) > 2 and self.stage != "candidate"
        self.model = body.get("model", "")

    @property
    def about(self) -> str | None:
        """The conversation the request is about: a marker, else an id in brackets."""
        for conversation, marker in MARKERS.items():
            if marker in self.text:
                return conversation
        found = re.search(r"\[([\w-]+)\]", self.text)
        return found.group(1) if found else None

    @property
    def schema(self) -> dict[str, Any]:
        return self.body["response_format"]["json_schema"]["schema"]


Route = Callable[[Request], "str | Reply"]


def routed(route: Route) -> OpenAIServer:
    """An OpenAIServer answering every request with `route(request)`."""

    def reply(body: dict[str, Any], _headers: dict[str, str]) -> Reply:
        answer = route(Request(body))
        return answer if isinstance(answer, Reply) else Reply(body=completion(answer))

    return OpenAIServer(reply)


def answer(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


def verdicts(request: Request, passed: Callable[[str], bool]) -> str:
    """A judge answer giving every check of the request's schema the verdict `passed(id)`."""
    ids = list(request.schema["properties"])
    return json.dumps(
        {i: {"reason": "scripted", "verdict": "yes" if passed(i) else "no"} for i in ids}
    )


def item_line(path: Path, line: int) -> dict[str, Any]:
    """The record at a 1-based line of a log."""
    return json.loads(path.read_text(encoding="utf-8").splitlines()[line - 1])
