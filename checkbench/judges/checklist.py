"""The checklist judge: one call per (item, response) in text mode, one token per check in
log-prob mode. Unparseable or failed judgments become unscored verdicts, never passes or fails."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from checkbench.judges import render
from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult
from checkbench.prompts import Prompt, load_prompt
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.steps.ask import Unusable, ask_structured, extract_json
from checkbench.steps.caller import Caller

JUDGE = "judge"
REASON_CHARS = 300
Mode = Literal["text", "logprob"]
_YES = {"yes", "y", "true", "是", "pass"}
_NO = {"no", "n", "false", "否", "fail"}


@dataclass(frozen=True)
class JudgeSettings:
    """How the checklist judge runs."""

    mode: Mode = "text"
    language: str = "auto"
    tokens_per_check: int = 120
    reasks: int = 2
    top_logprobs: int = 10


def judge_name(backend: ChatBackend, settings: JudgeSettings) -> str:
    """The judge's identity in verdicts; log-prob verdicts are kept apart from text ones."""
    return backend.name if settings.mode == "text" else f"{backend.name}#logprob"


def verdict_schema(check_ids: list[str]) -> dict[str, Any]:
    """One required property per check id, so constrained decoders emit each exactly once."""
    entry = {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "maxLength": REASON_CHARS},
            "verdict": {"type": "string", "enum": ["yes", "no"]},
        },
        "required": ["reason", "verdict"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {check_id: entry for check_id in check_ids},
        "required": check_ids,
        "additionalProperties": False,
    }


def _prompt(item: Item, settings: JudgeSettings, kind: str) -> Prompt:
    language = render.language_of(item.meta.get("language"), settings.language)
    return load_prompt(f"{kind}_{language}")


def text_request(item: Item, content: str, settings: JudgeSettings) -> ChatRequest:
    """Instructions, then conversation and checklist (shared by all candidates), then the reply."""
    prompt = _prompt(item, settings, "checklist_judge")
    user = prompt.render(
        conversation=render.conversation(item.messages),
        reference=render.reference(item.reference),
        checklist=render.checklist(item.checklist),
        response=render.fence("reply", content),
    )
    return ChatRequest(
        messages=(
            Message(role="system", content=prompt.system),
            Message(role="user", content=user),
        ),
        max_tokens=32 + settings.tokens_per_check * len(item.checklist),
        json_schema=verdict_schema([c.id for c in item.checklist]),
    )


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    word = str(value).strip().strip(".").lower()
    return True if word in _YES else False if word in _NO else None


def _entries(data: Any) -> list[tuple[str, Any]]:
    """(check id, entry) pairs from {"c1": {...}}, {"checks": [{"id": "c1", ...}]} or a list."""
    if isinstance(data, dict) and isinstance(data.get("checks"), list):
        data = data["checks"]
    if isinstance(data, list):
        return [(str(e.get("id")), e) for e in data if isinstance(e, dict)]
    if isinstance(data, dict):
        return [(str(key), entry) for key, entry in data.items()]
    return []


def parse_verdicts(
    raw: str, check_ids: list[str]
) -> tuple[dict[str, tuple[bool, str]], str | None]:
    """Verdicts by check id from a judge's JSON answer, and what was wrong with it, if anything."""
    try:
        data = extract_json(raw)
    except Unusable as exc:
        return {}, str(exc)
    found: dict[str, tuple[bool, str]] = {}
    for check_id, entry in _entries(data):
        if check_id not in check_ids or check_id in found or not isinstance(entry, dict):
            continue
        verdict = _as_bool(entry.get("verdict"))
        if verdict is not None:
            found[check_id] = (verdict, str(entry.get("reason", "")))
    missing = [c for c in check_ids if c not in found]
    return found, (f"missing or invalid verdicts for {', '.join(missing)}" if missing else None)


@dataclass(frozen=True)
class _Target:
    """Which judge is judging which response to which item: the key every verdict shares."""

    item: Item
    response: Response
    judge: str

    def verdict(self, check_id: str, passed: bool | None, reason: str, **extra: Any) -> Verdict:
        return Verdict(
            item_id=self.item.id,
            model=self.response.model,
            judge=self.judge,
            check_id=check_id,
            passed=passed,
            reason=reason,
            **extra,
        )

    def unscored(self, reason: str, raw: str | None = None) -> list[Verdict]:
        return [self.verdict(c.id, None, reason, raw=raw) for c in self.item.checklist]


async def judge_text(
    caller: Caller, backend: ChatBackend, item: Item, response: Response, settings: JudgeSettings
) -> list[Verdict]:
    """One call judges the whole checklist; a malformed answer is re-asked `reasks` times, and
    checks still without a usable verdict after that are stored unscored with the raw answer."""
    ids = [c.id for c in item.checklist]

    def strict(raw: str) -> dict[str, tuple[bool, str]]:
        found, problem = parse_verdicts(raw, ids)
        if problem is not None:
            raise Unusable(problem)
        return found

    request = text_request(item, response.content or "", settings)
    answer = await ask_structured(
        caller, backend, request, strict, role=JUDGE, reasks=settings.reasks
    )
    found = answer.value
    if found is None:
        found = parse_verdicts(answer.raw, ids)[0] if answer.raw is not None else {}
    target = _Target(item, response, judge_name(backend, settings))
    return [
        target.verdict(c.id, *found[c.id])
        if c.id in found
        else target.verdict(c.id, None, f"unscored: {answer.problem}", raw=answer.raw)
        for c in item.checklist
    ]


def logprob_request(item: Item, content: str, check: Check, settings: JudgeSettings) -> ChatRequest:
    """Everything but the check comes first, so the calls for one reply share their prefix."""
    prompt = _prompt(item, settings, "check_logprob")
    user = prompt.render(
        conversation=render.conversation(item.messages),
        response=render.fence("reply", content),
        check=check.text,
    )
    return ChatRequest(
        messages=(
            Message(role="system", content=prompt.system),
            Message(role="user", content=user),
        ),
        max_tokens=1,
        top_logprobs=settings.top_logprobs,
    )


def p_yes(result: ChatResult) -> float | None:
    """P(yes) / (P(yes) + P(no)) from the first token's top alternatives; None if neither shows."""
    if not result.logprobs:
        return None
    yes = no = 0.0
    for token, logprob in result.logprobs[0].top.items():
        word = token.strip().strip(".").lower()
        if word in _YES:
            yes += math.exp(logprob)
        elif word in _NO:
            no += math.exp(logprob)
    return yes / (yes + no) if yes + no > 0 else None


async def judge_logprob(
    caller: Caller, backend: ChatBackend, item: Item, response: Response, settings: JudgeSettings
) -> list[Verdict]:
    """One single-token call per check; passed = P(yes) >= 0.5."""
    target = _Target(item, response, judge_name(backend, settings))
    verdicts = []
    for check in item.checklist:
        request = logprob_request(item, response.content or "", check, settings)
        outcome = await caller.call(backend, request, role=JUDGE)
        prob = p_yes(outcome.result) if outcome.result is not None else None
        if prob is not None:
            verdict = target.verdict(check.id, prob >= 0.5, f"P(yes) = {prob:.3f}", p_yes=prob)
        elif outcome.result is None:
            verdict = target.verdict(check.id, None, f"unscored: {outcome.error}")
        else:
            raw = outcome.result.model_dump_json()
            verdict = target.verdict(check.id, None, "unscored: no yes/no token", raw=raw)
        verdicts.append(verdict)
    return verdicts


async def judge_response(
    caller: Caller, backend: ChatBackend, item: Item, response: Response, settings: JudgeSettings
) -> list[Verdict]:
    """Verdicts for every check of one response; a failed response is unscored, not judged."""
    if response.error is not None or response.content is None:
        target = _Target(item, response, judge_name(backend, settings))
        return target.unscored(f"unscored: the candidate produced no response ({response.error})")
    if settings.mode == "logprob":
        return await judge_logprob(caller, backend, item, response, settings)
    return await judge_text(caller, backend, item, response, settings)
