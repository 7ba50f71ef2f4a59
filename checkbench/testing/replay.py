"""A replay judge: an OpenAI-compatible answer function that grades checklist-judge requests
with the stored verdicts of one judge of a run (e.g. the FB-Bench authors' GPT-4o verdicts
after `checkbench fbbench import`), so a strong judge can be stood in for without calling it.

A request is matched to its reply by the fenced conversation and fenced reply it quotes, and
answered for the checks its schema asks about; a check without a stored verdict is left out of
the answer (the judge re-asks, then leaves it unscored). Other requests get a canned answer.

    python -m checkbench.testing --replay RUN --replay-judge ID     # prints its base URL
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkbench.judges import render
from checkbench.prompts import fence
from checkbench.schema import Verdict
from checkbench.store import RunStore
from checkbench.testing.answers import CANNED, Answer, priced, schema_of


@dataclass(frozen=True)
class _Reply:
    """One stored reply: the fence that quotes it, and the judge's verdicts on its checks."""

    quoted: str
    verdicts: dict[str, Verdict]


class ReplayJudge:
    """The answer function of a replay server: built from run `run_dir`'s verdicts by judge
    `judge` (read once, so the run can be written while it serves); `asked` counts the
    checks it was asked about and `answered` those it had a verdict for."""

    def __init__(self, run_dir: str | Path, judge: str) -> None:
        with RunStore.existing(run_dir) as store:
            verdicts = store.verdicts(judge)
            if not verdicts:
                found = ", ".join(store.judges()) or "none"
                raise ValueError(f"no verdicts by judge {judge!r} in {run_dir} (judges: {found})")
            by_reply: dict[tuple[str, str, int], dict[str, Verdict]] = {}
            for v in verdicts:
                by_reply.setdefault((v.item_id, v.model, v.sample), {})[v.check_id] = v
            self._items: dict[str, str] = {}
            self._replies: dict[str, list[_Reply]] = {}
            for item in store.items():
                self._items[item.id] = render.conversation(item.messages)
            for r in store.responses():
                found_verdicts = by_reply.get((r.item_id, r.model, r.sample))
                if found_verdicts and r.content is not None:
                    reply = _Reply(fence("reply", r.content), found_verdicts)
                    self._replies.setdefault(r.item_id, []).append(reply)
        self.judge = judge
        self.asked = 0
        self.answered = 0

    def verdicts_for(self, prompt: str) -> dict[str, Verdict] | None:
        """The stored verdicts of the reply a judge prompt quotes, None if none matches."""
        for item_id, conversation in self._items.items():
            if conversation in prompt:
                for reply in self._replies.get(item_id, ()):
                    if reply.quoted in prompt:
                        return reply.verdicts
        return None

    def __call__(self, body: dict[str, Any], _headers: dict[str, str]) -> Answer:
        schema = schema_of(body)
        if schema is None:
            return CANNED
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        stored = self.verdicts_for(prompt) or {}
        checks = list(schema.get("properties", {}))
        self.asked += len(checks)
        answer = {}
        for check in checks:
            v = stored.get(check)
            if v is not None and v.passed is not None:
                answer[check] = {"reason": f"replayed ({self.judge})", "verdict": _word(v)}
        self.answered += len(answer)
        return 200, priced(body, json.dumps(answer))


def _word(verdict: Verdict) -> str:
    return "yes" if verdict.passed else "no"
