"""The checklist judge: one call per (item, response) in text mode, one token per check in
log-prob mode. Unparseable or failed judgments become unscored verdicts, never passes or fails."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import ValidationError, model_validator

from checkbench.choices import JudgeMode as Mode
from checkbench.judges import render
from checkbench.llm.base import ChatBackend, ChatRequest, ChatResult
from checkbench.schema import Check, Item, Response, Verdict
from checkbench.steps.answers import (
    Answer,
    Keyed,
    Unusable,
    YesNo,
    extract_json,
    keyed,
    text,
    yes_no,
)
from checkbench.steps.model import StepModel
from checkbench.steps.prompting import prompt_request

JUDGE = "judge"
REASON_CHARS = 300


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


class CheckVerdict(Answer):
    """The verdict on one check, with its reason (a verdict given without one still counts)."""

    reason: text(REASON_CHARS) = ""
    verdict: YesNo

    def pair(self) -> tuple[bool, str]:
        return self.verdict == "yes", self.reason


def by_check_id(data: Any, check_ids: Sequence[str]) -> Any:
    """A judge's entries keyed by check id: {"c1": {...}} as it is, {"checks": [...]} or a list
    of {"id": "c1", ...} keyed by their ids. Ids not asked about are left out; a repeated id
    keeps its first entry."""
    if isinstance(data, dict) and isinstance(data.get("checks"), list):
        data = data["checks"]
    if isinstance(data, list):
        listed: dict[str, Any] = {}
        for entry in data:
            if isinstance(entry, dict):
                rest = {key: value for key, value in entry.items() if key != "id"}
                listed.setdefault(str(entry.get("id")), rest)
        data = listed
    if isinstance(data, dict):
        return {str(key): entry for key, entry in data.items() if str(key) in check_ids}
    return data


class Verdicts(Keyed):
    """One verdict per check id, each required, so constrained decoders emit each exactly once."""

    @model_validator(mode="before")
    @classmethod
    def _by_id(cls, data: Any) -> Any:
        return by_check_id(data, cls.keys())


@cache
def verdicts_answer(check_ids: tuple[str, ...]) -> type[Verdicts]:
    """The answer to a checklist of these ids."""
    return keyed("Verdicts", check_ids, CheckVerdict, base=Verdicts)


def _prompt(item: Item, settings: JudgeSettings, kind: str) -> str:
    return f"{kind}_{render.language_of(item.meta.get('language'), settings.language)}"


def text_request(item: Item, content: str, settings: JudgeSettings) -> ChatRequest:
    """Instructions, then conversation and checklist (shared by all candidates), then the reply."""
    values = {
        "conversation": render.conversation(item.messages),
        "reference": render.reference(item.reference),
        "checklist": render.checklist(item.checklist),
        "response": render.fence("reply", content),
    }
    tokens = 32 + settings.tokens_per_check * len(item.checklist)
    return prompt_request(_prompt(item, settings, "checklist_judge"), values, max_tokens=tokens)


def parse_verdicts(
    raw: str, check_ids: list[str]
) -> tuple[dict[str, tuple[bool, str]], str | None]:
    """The usable verdicts by check id in a judge's answer, and what was wrong with it, if
    anything: what an answer still unusable after the re-asks gives."""
    try:
        entries = by_check_id(extract_json(raw), check_ids)
    except Unusable as exc:
        return {}, str(exc)
    found: dict[str, tuple[bool, str]] = {}
    for check_id, entry in entries.items() if isinstance(entries, dict) else ():
        try:
            found[check_id] = CheckVerdict.model_validate(entry).pair()
        except ValidationError:
            continue
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
            sample=self.response.sample,
            judge=self.judge,
            check_id=check_id,
            passed=passed,
            reason=reason,
            **extra,
        )

    def unscored(self, reason: str, raw: str | None = None) -> list[Verdict]:
        return [self.verdict(c.id, None, reason, raw=raw) for c in self.item.checklist]


async def judge_text(
    model: StepModel, item: Item, response: Response, settings: JudgeSettings
) -> list[Verdict]:
    """One call judges the whole checklist; a malformed answer is re-asked `reasks` times, and
    checks still without a usable verdict after that are stored unscored with the raw answer."""
    ids = [c.id for c in item.checklist]
    request = text_request(item, response.content or "", settings)
    answer = await model.ask(
        request, verdicts_answer(tuple(ids)), role=JUDGE, reasks=settings.reasks
    )
    if answer.value is not None:
        found = {key: entry.pair() for key, entry in answer.value.entries().items()}
    else:
        found = parse_verdicts(answer.raw, ids)[0] if answer.raw is not None else {}
    target = _Target(item, response, judge_name(model.backend, settings))
    return [
        target.verdict(c.id, *found[c.id])
        if c.id in found
        else target.verdict(c.id, None, f"unscored: {answer.problem}", raw=answer.raw)
        for c in item.checklist
    ]


def logprob_request(item: Item, content: str, check: Check, settings: JudgeSettings) -> ChatRequest:
    """Everything but the check comes first, so the calls for one reply share their prefix."""
    values = {
        "conversation": render.conversation(item.messages),
        "response": render.fence("reply", content),
        "check": check.text,
    }
    return prompt_request(
        _prompt(item, settings, "check_logprob"),
        values,
        max_tokens=1,
        top_logprobs=settings.top_logprobs,
    )


def p_yes(result: ChatResult) -> float | None:
    """P(yes) / (P(yes) + P(no)) from the first token's top alternatives; None if neither shows."""
    if not result.logprobs:
        return None
    yes = no = 0.0
    for token, logprob in result.logprobs[0].top.items():
        word = yes_no(token)
        if word is True:
            yes += math.exp(logprob)
        elif word is False:
            no += math.exp(logprob)
    return yes / (yes + no) if yes + no > 0 else None


async def judge_logprob(
    model: StepModel, item: Item, response: Response, settings: JudgeSettings
) -> list[Verdict]:
    """One single-token call per check; passed = P(yes) >= 0.5."""
    target = _Target(item, response, judge_name(model.backend, settings))
    verdicts = []
    for check in item.checklist:
        request = logprob_request(item, response.content or "", check, settings)
        outcome = await model.call(request, role=JUDGE)
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
    model: StepModel, item: Item, response: Response, settings: JudgeSettings
) -> list[Verdict]:
    """Verdicts for every check of one response; a failed response is unscored, not judged."""
    if response.error is not None or response.content is None:
        target = _Target(item, response, judge_name(model.backend, settings))
        return target.unscored(f"unscored: the candidate produced no response ({response.error})")
    if settings.mode == "logprob":
        return await judge_logprob(model, item, response, settings)
    return await judge_text(model, item, response, settings)
