"""The PC^2 judge (SCAN): grade against criteria derived by pre-comparing auxiliary answers.

1. Auxiliary answers: each auxiliary model answers the item like a candidate would.
2. Criteria: the judge compares those answers and derives 3-9 criteria with integer weights
   that sum to 100. A wrong count, a missing name, or a weight that is not a
   positive integer is re-asked; a sum other than 100 is fixed by proportional rescaling with
   largest-remainder rounding (every weight stays at least 1) and the model's own weights are
   kept in `rescaled_from`. Criteria are derived once per (judge, auxiliary set, item), stored
   as a record, and reused for every candidate.
3. Pointwise: the judge scores a response on each criterion with an integer from 0 to 10 (an
   integer scale rather than yes/no, so partial fulfilment of a broad criterion counts in
   proportion); the score is sum(weight * points) / 10, from 0 to 100.
4. Pairwise: per criterion the judge names the better answer ("first", "second" or "tie"); the
   margin is the weight won by the first minus the weight won by the second, and its sign names
   the winner. Every pair is judged in both orders and stored as `meta.PairVerdict`s, so the
   meta-evaluation code reads them: a pair is won only when both orders pick the same response,
   tied when they say tie or disagree (`meta.two_order_prefer`), and the orders' agreement is
   `meta.position_consistency`.

Anything unusable after the re-asks is recorded with its problem and raw answer and counted as
unscored, never as a score. Agreement with human pairwise preferences is pairwise accuracy: the
share of human-preferred pairs the judge orders the same way (ties and unscored counted apart).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from checkbench.errors import InputError
from checkbench.generate import GenerationSettings, candidate_request
from checkbench.jsonl import iter_json_lines, validate
from checkbench.judges import render
from checkbench.llm.base import ChatBackend
from checkbench.prompts import fence
from checkbench.schema import Item, PairVerdict, Response
from checkbench.scoring import GroupScore, summarize
from checkbench.stats import mean_ci
from checkbench.stats.estimate import Stat
from checkbench.stats.preference import Prefer, by_scores, two_order_prefer
from checkbench.stats.ranking import Comparison, PositionReport, position_consistency
from checkbench.steps.ask import Structured, Unusable
from checkbench.steps.caller import Caller
from checkbench.steps.progress import ProgressSink
from checkbench.steps.prompting import (
    Asker,
    bounded_array,
    choice,
    field,
    json_object,
    prompt_request,
    strict_object,
    text,
)
from checkbench.steps.stage import StageRun, StageSummary
from checkbench.store import RunStore

T = TypeVar("T")
AUX, JUDGE = "pc2-aux", "pc2-judge"
CRITERIA_KIND, POINT_KIND, PAIR_KIND = "pc2.criteria", "pc2.pointwise", "pc2.pairwise"
MIN_CRITERIA, MAX_CRITERIA, TOTAL_WEIGHT, MAX_POINTS = 3, 9, 100, 10
Mode = Literal["pointwise", "pairwise", "both"]
Better = Literal["first", "second", "tie"]
BETTER: tuple[Better, ...] = ("first", "second", "tie")
POINTS = range(MAX_POINTS + 1)
NO_CRITERIA = "no criteria for this item"


@dataclass(frozen=True)
class PC2Settings:
    """Which variants run and how long the answers may be; `max_criteria` (3-9) caps the
    criteria asked for."""

    mode: Mode = "both"
    max_criteria: int = MAX_CRITERIA
    aux_max_tokens: int = 512
    answer_chars: int = 4000
    analysis_chars: int = 400
    name_chars: int = 60
    description_chars: int = 200
    reason_chars: int = 160
    reasks: int = 2

    def __post_init__(self) -> None:
        if not MIN_CRITERIA <= self.max_criteria <= MAX_CRITERIA:
            raise ValueError(f"max_criteria must be {MIN_CRITERIA} to {MAX_CRITERIA}")


class Criterion(BaseModel):
    """One weighted criterion; `id` (k1, k2, ...) keys the judge's answers."""

    id: str
    name: str
    description: str
    weight: int


class CriteriaSet(BaseModel):
    """An item's criteria; `rescaled_from` holds the model's weights when they were fixed up."""

    criteria: list[Criterion]
    rescaled_from: list[int] | None = None


class PointScore(BaseModel):
    """A pointwise grade: 0-100, or None (unscored) with the problem."""

    item_id: str
    model: str
    score: float | None
    points: dict[str, int] = {}
    problem: str | None = None


class HumanPreference(BaseModel):
    """A human judgment: on this item, `chosen`'s response beats `rejected`'s (other fields of
    a line, e.g. the annotator, are ignored)."""

    model_config = ConfigDict(extra="ignore")

    item_id: str
    chosen: str
    rejected: str


class PairAccuracy(BaseModel):
    """Agreement with human preferences; ties and unscored pairs count as not correct."""

    pairs: int
    correct: int
    wrong: int
    ties: int
    unscored: int
    accuracy: Stat


class PC2Report(BaseModel):
    """Everything a PC^2 run produced, summarized."""

    judge: str
    items: int
    criteria_failed: int
    criteria_rescaled: int
    pointwise: dict[str, GroupScore]
    pairwise: dict[str, dict[str, int]]
    position: PositionReport | None
    human: dict[str, PairAccuracy]


def judge_id(judge: str, aux: Sequence[str]) -> str:
    """The PC^2 judge's identity: the judge model and the auxiliary models that shaped it."""
    return f"pc2:{judge}|aux={'+'.join(aux)}"


def fix_weights(weights: Sequence[int]) -> list[int]:
    """Weights rescaled to sum to 100: exact shares rounded down, the leftover points to the
    largest remainders (earlier criteria first on ties); a weight that would be 0 takes one
    point from the largest. Weights that already sum to 100 are returned unchanged."""
    total = sum(weights)
    if total == TOTAL_WEIGHT:
        return list(weights)
    exact = [Fraction(w * TOTAL_WEIGHT, total) for w in weights]
    fixed = [math.floor(share) for share in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (fixed[i] - exact[i], i))
    for i in by_remainder[: TOTAL_WEIGHT - sum(fixed)]:
        fixed[i] += 1
    for i in range(len(fixed)):
        while fixed[i] < 1:
            largest = max(range(len(fixed)), key=lambda j: (fixed[j], -j))
            fixed[largest] -= 1
            fixed[i] += 1
    return fixed


def parse_criteria(raw: str, max_criteria: int = MAX_CRITERIA) -> CriteriaSet:
    """The criteria of an answer, weights fixed up to sum to 100; Unusable when the count, a
    name or a weight is wrong."""
    entries = field(json_object(raw), "criteria", list)
    if not MIN_CRITERIA <= len(entries) <= max_criteria:
        raise Unusable(f"give {MIN_CRITERIA} to {max_criteria} criteria, not {len(entries)}")
    criteria: list[Criterion] = []
    for n, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise Unusable("each criterion must be an object with name, description and weight")
        name = field(entry, "name", str).strip()
        weight = field(entry, "weight", int)
        if not name or weight < 1:
            raise Unusable(f"criterion {n} needs a name and a positive integer weight")
        description = str(entry.get("description", "")).strip()
        criteria.append(Criterion(id=f"k{n}", name=name, description=description, weight=weight))
    weights = [c.weight for c in criteria]
    fixed = fix_weights(weights)
    if fixed == weights:
        return CriteriaSet(criteria=criteria)
    rescaled = [c.model_copy(update={"weight": w}) for c, w in zip(criteria, fixed, strict=True)]
    return CriteriaSet(criteria=rescaled, rescaled_from=weights)


def _per_criterion(raw: str, criteria: CriteriaSet, key: str, allowed: Sequence[Any]) -> dict:
    """criterion id -> the answer's `key` value, which must be one of `allowed`."""
    data = json_object(raw)
    found = {}
    for c in criteria.criteria:
        entry = data.get(c.id)
        value = entry.get(key) if isinstance(entry, dict) else None
        if isinstance(value, bool) or value not in allowed:
            raise Unusable(f"'{c.id}' needs a '{key}' out of {list(allowed)}")
        found[c.id] = value
    return found


def parse_points(raw: str, criteria: CriteriaSet) -> dict[str, int]:
    """Points 0-10 per criterion id; Unusable if any is missing or out of range."""
    return _per_criterion(raw, criteria, "score", POINTS)


def parse_better(raw: str, criteria: CriteriaSet) -> dict[str, Better]:
    """first / second / tie per criterion id; Unusable if any is missing or unknown."""
    return _per_criterion(raw, criteria, "better", BETTER)


def weighted_score(criteria: CriteriaSet, points: dict[str, int]) -> float:
    """sum(weight * points) / 10: 0 to 100."""
    return sum(c.weight * points[c.id] for c in criteria.criteria) / MAX_POINTS


def margin(criteria: CriteriaSet, better: dict[str, Better]) -> int:
    """Weight won by the first answer minus weight won by the second."""
    sign = {"first": 1, "second": -1, "tie": 0}
    return sum(c.weight * sign[better[c.id]] for c in criteria.criteria)


def _criteria_block(criteria: CriteriaSet) -> str:
    lines = [f"{c.id} ({c.weight}): {c.name}: {c.description}" for c in criteria.criteria]
    return fence("criteria", "\n".join(lines))


def _cut(content: str, chars: int) -> str:
    return content if len(content) <= chars else content[:chars] + " [...]"


class PC2Judge:
    """Criteria derivation and grading for one judge model with one set of auxiliary models."""

    def __init__(
        self,
        caller: Caller,
        judge: ChatBackend,
        aux: Sequence[ChatBackend],
        settings: PC2Settings,
    ) -> None:
        self.caller, self.judge, self.aux, self.settings = caller, judge, list(aux), settings
        self.name = judge_id(judge.name, [backend.name for backend in aux])
        self._ask = Asker(caller, judge, JUDGE, settings.reasks)

    async def aux_answers(self, item: Item) -> list[str]:
        """The auxiliary models' answers (failed calls left out)."""
        generation = GenerationSettings(max_tokens=self.settings.aux_max_tokens)
        answers = []
        for backend in self.aux:
            request = await candidate_request(item, generation, backend)
            outcome = await self.caller.call(backend, request, role=AUX)
            if outcome.result is not None and outcome.result.content.strip():
                answers.append(outcome.result.content)
        return answers

    async def criteria(self, item: Item) -> dict[str, Any]:
        """The record of an item's criteria: {"criteria": CriteriaSet JSON} or a problem."""
        s = self.settings
        answers = await self.aux_answers(item)
        if not answers:
            return {"problem": "no auxiliary model answered"}
        entry = strict_object(
            {
                "name": text(s.name_chars),
                "description": text(s.description_chars),
                "weight": {"type": "integer", "minimum": 1, "maximum": TOTAL_WEIGHT},
            }
        )
        schema = strict_object(
            {
                "analysis": text(s.analysis_chars),
                "criteria": bounded_array(entry, min_items=MIN_CRITERIA, max_items=s.max_criteria),
            }
        )
        values = {
            "max_criteria": str(s.max_criteria),
            "conversation": render.conversation(item.messages),
            "answers": "\n".join(
                fence(f"answer {n}", _cut(answer, s.answer_chars))
                for n, answer in enumerate(answers, start=1)
            ),
        }
        tokens = (
            40 + (s.analysis_chars + s.max_criteria * (s.name_chars + s.description_chars)) // 2
        )
        request = prompt_request("pc2_criteria", values, schema=schema, max_tokens=tokens)
        answer = await self._ask(request, lambda raw: parse_criteria(raw, s.max_criteria))
        if answer.value is None:
            return {"problem": answer.problem, "raw": answer.raw}
        return {"criteria": answer.value.model_dump(), "aux_answers": len(answers)}

    async def _grade(
        self,
        prompt: str,
        item: Item,
        criteria: CriteriaSet,
        shown: dict[str, str],
        key: str,
        allowed: Sequence[Any],
        parse: Callable[[str, CriteriaSet], T],
    ) -> Structured[T]:
        """Ask for a reason and a `key` out of `allowed` per criterion, about the answers shown."""
        entry = strict_object({"reason": text(self.settings.reason_chars), key: choice(allowed)})
        schema = strict_object({c.id: entry for c in criteria.criteria})
        values = {
            "conversation": render.conversation(item.messages),
            "criteria": _criteria_block(criteria),
            **shown,
        }
        tokens = 24 + len(criteria.criteria) * (24 + self.settings.reason_chars // 2)
        request = prompt_request(prompt, values, schema=schema, max_tokens=tokens)
        return await self._ask(request, lambda raw: parse(raw, criteria))

    async def pointwise(self, item: Item, criteria: CriteriaSet, response: Response) -> PointScore:
        """Grade one response; an absent response or unusable answer is unscored."""
        if response.content is None or response.error is not None:
            problem = f"the candidate produced no response ({response.error})"
            return PointScore(item_id=item.id, model=response.model, score=None, problem=problem)
        shown = {"response": fence("answer", response.content)}
        answer = await self._grade(
            "pc2_pointwise", item, criteria, shown, "score", POINTS, parse_points
        )
        if answer.value is None:
            return PointScore(
                item_id=item.id, model=response.model, score=None, problem=answer.problem
            )
        score = weighted_score(criteria, answer.value)
        return PointScore(item_id=item.id, model=response.model, score=score, points=answer.value)

    async def pairwise(
        self, item: Item, criteria: CriteriaSet, first: Response, second: Response
    ) -> PairVerdict:
        """Compare two responses in the order given (first shown as a, second as b)."""
        verdict = partial(
            PairVerdict, item_id=item.id, judge=self.name, a=first.model, b=second.model
        )
        if first.content is None or second.content is None:
            return verdict(winner=None, reason="unscored: a candidate produced no response")
        shown = {
            "first": fence("first answer", first.content),
            "second": fence("second answer", second.content),
        }
        answer = await self._grade(
            "pc2_pairwise", item, criteria, shown, "better", BETTER, parse_better
        )
        if answer.value is None:
            return verdict(
                winner=None,
                reason=f"unscored: {answer.problem}",
                raw=answer.raw,
                attempts=answer.attempts,
            )
        won = margin(criteria, answer.value)
        return verdict(
            winner="a" if won > 0 else "b" if won < 0 else "tie",
            reason=f"weighted margin {won:+d} (first minus second)",
            attempts=answer.attempts,
        )


def load_preferences(path: str | Path, store: RunStore) -> list[HumanPreference]:
    """Human pairwise preferences from JSONL, each naming two different models that answered
    the item in this run."""
    answered = {(r.item_id, r.model) for r in store.responses()}
    preferences = []
    for line, record in iter_json_lines(path):
        preference = validate(HumanPreference, record, path=path, line=line)
        if preference.chosen == preference.rejected:
            raise InputError("chosen and rejected are the same model", path=path, line=line)
        for side in ("chosen", "rejected"):
            model = getattr(preference, side)
            if (preference.item_id, model) not in answered:
                problem = f"no response of '{model}' to item '{preference.item_id}' in the run"
                raise InputError(problem, path=path, line=line, field=side)
        preferences.append(preference)
    return preferences


def _by_item(verdicts: Iterable[PairVerdict]) -> dict[str, list[PairVerdict]]:
    grouped: dict[str, list[PairVerdict]] = defaultdict(list)
    for verdict in verdicts:
        grouped[verdict.item_id].append(verdict)
    return grouped


def position_report(verdicts: Iterable[PairVerdict]) -> PositionReport:
    """Position consistency of the scored judgments (responses told apart by item)."""
    return position_consistency(
        Comparison(a=f"{v.item_id}|{v.a}", b=f"{v.item_id}|{v.b}", winner=v.winner)
        for v in verdicts
        if v.winner is not None
    )


def win_counts(verdicts: Iterable[PairVerdict]) -> dict[str, dict[str, int]]:
    """Per model, its pairs won, tied and lost over both orders (`meta.two_order_prefer`: a
    win needs both orders; disagreeing orders are a tie), and pairs left unscored."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    outcome = {1: "wins", 0: "ties", -1: "losses", None: "unscored"}
    for group in _by_item(verdicts).values():
        prefer = two_order_prefer(group)
        for x, y in {tuple(sorted((v.a, v.b))) for v in group}:
            order = prefer(x, y)
            counts[x][outcome[order]] += 1
            counts[y][outcome[None if order is None else -order]] += 1
    keys = ("wins", "ties", "losses", "unscored")
    return {model: {k: c[k] for k in keys} for model, c in sorted(counts.items())}


def human_accuracy(
    preferences: Sequence[HumanPreference], prefer_of: Callable[[str], Prefer]
) -> PairAccuracy:
    """Share of human pairs the judge orders as the human did; `prefer_of(item_id)` gives the
    judge's order of two models' responses to that item."""
    outcome = {1: "correct", -1: "wrong", 0: "tie", None: "unscored"}
    verdicts = [outcome[prefer_of(p.item_id)(p.chosen, p.rejected)] for p in preferences]
    count = Counter(verdicts)
    estimate = mean_ci([float(v == "correct") for v in verdicts])
    return PairAccuracy(
        pairs=len(verdicts),
        correct=count["correct"],
        wrong=count["wrong"],
        ties=count["tie"],
        unscored=count["unscored"],
        accuracy=Stat.from_estimate(estimate),
    )


@dataclass(frozen=True)
class PC2Result:
    """All grades of a run, the summary report and the stage's call counts."""

    criteria: dict[str, CriteriaSet | None]
    pointwise: list[PointScore]
    pairwise: list[PairVerdict]
    report: PC2Report
    summary: StageSummary


@dataclass(frozen=True)
class _Job:
    """One grading: pointwise (one response) or one order of a pair."""

    kind: str
    shown: tuple[Response, ...]
    run: Callable[[], Awaitable[PointScore | PairVerdict]]

    def key(self, judge: str) -> str:
        return "|".join([judge, self.shown[0].item_id, *(r.model for r in self.shown)])


def _criteria_of(record: dict[str, Any]) -> CriteriaSet | None:
    return CriteriaSet.model_validate(record["criteria"]) if "criteria" in record else None


def _done(records: dict[str, Any]) -> dict[str, Any]:
    """The records that succeeded; failed ones are tried again (their calls replay cached)."""
    return {key: value for key, value in records.items() if not value.get("problem")}


async def pc2_evaluate(
    store: RunStore,
    judge: ChatBackend,
    aux: Sequence[ChatBackend],
    *,
    settings: PC2Settings | None = None,
    preferences: Sequence[HumanPreference] = (),
    caller: Caller | None = None,
    progress: ProgressSink | None = None,
) -> PC2Result:
    """Derive criteria for every answered item, then grade every response (pointwise) and
    every pair of responses in both orders (pairwise); rerunning resumes."""
    settings = settings or PC2Settings()
    stage = StageRun.begin(store, caller, progress)
    pc2 = PC2Judge(stage.caller, judge, aux, settings)
    items = {item.id: item for item in store.items()}
    responses: dict[str, list[Response]] = defaultdict(list)
    for response in store.responses():
        responses[response.item_id].append(response)

    derived = _done(store.records(CRITERIA_KIND))
    todo = [i for i in responses if f"{pc2.name}|{i}" not in derived]

    async def derive(item_id: str) -> None:
        record = await pc2.criteria(items[item_id])
        store.put_record(CRITERIA_KIND, f"{pc2.name}|{item_id}", record)

    await stage.each("pc2: criteria", todo, judge.max_concurrency, derive)
    records = store.records(CRITERIA_KIND)
    criteria = {i: _criteria_of(records[f"{pc2.name}|{i}"]) for i in responses}

    async def point(item: Item, response: Response) -> PointScore:
        known = criteria[item.id]
        if known is None:
            return PointScore(
                item_id=item.id, model=response.model, score=None, problem=NO_CRITERIA
            )
        return await pc2.pointwise(item, known, response)

    async def pair(item: Item, first: Response, second: Response) -> PairVerdict:
        known = criteria[item.id]
        if known is None:
            return PairVerdict(
                item_id=item.id,
                judge=pc2.name,
                a=first.model,
                b=second.model,
                winner=None,
                reason=f"unscored: {NO_CRITERIA}",
            )
        return await pc2.pairwise(item, known, first, second)

    jobs: list[_Job] = []
    for item_id, answered in responses.items():
        item = items[item_id]
        if settings.mode != "pairwise":
            jobs += [_Job(POINT_KIND, (r,), partial(point, item, r)) for r in answered]
        if settings.mode != "pointwise":
            for a, b in combinations(sorted(answered, key=lambda r: r.model), 2):
                jobs.append(_Job(PAIR_KIND, (a, b), partial(pair, item, a, b)))
                jobs.append(_Job(PAIR_KIND, (b, a), partial(pair, item, b, a)))
    finished = {kind: _done(store.records(kind)) for kind in (POINT_KIND, PAIR_KIND)}
    results: dict[str, list[Any]] = {POINT_KIND: [], PAIR_KIND: []}

    async def grade(job: _Job) -> None:
        key = job.key(pc2.name)
        model = PointScore if job.kind == POINT_KIND else PairVerdict
        if key in finished[job.kind]:
            result: BaseModel = model.model_validate(finished[job.kind][key])
        else:
            result = await job.run()
            store.put_record(job.kind, key, result.model_dump())
        results[job.kind].append(result)

    await stage.each("pc2: grade", jobs, judge.max_concurrency, grade)
    points = sorted(results[POINT_KIND], key=lambda p: (p.model, p.item_id))
    pairs = sorted(results[PAIR_KIND], key=lambda p: (p.item_id, p.a, p.b))
    already = sum(job.key(pc2.name) in finished[job.kind] for job in jobs)
    report = _report(pc2.name, criteria, points, pairs, preferences)
    unscored = sum(p.score is None for p in points) + sum(p.winner is None for p in pairs)
    summary = stage.clock.summary("pc2", total=len(jobs), already_done=already, errors=unscored)
    return PC2Result(criteria, points, pairs, report, summary)


def _report(
    name: str,
    criteria: dict[str, CriteriaSet | None],
    points: list[PointScore],
    pairs: list[PairVerdict],
    preferences: Sequence[HumanPreference],
) -> PC2Report:
    by_model: dict[str, list[float | None]] = defaultdict(list)
    scores: dict[str, dict[str, float | None]] = defaultdict(dict)
    for p in points:
        by_model[p.model].append(None if p.score is None else p.score / TOTAL_WEIGHT)
        scores[p.item_id][p.model] = p.score
    human = {}
    if preferences and points:
        human["pointwise"] = human_accuracy(
            preferences, lambda item_id: by_scores(defaultdict(lambda: None, scores[item_id]))
        )
    if preferences and pairs:
        grouped = _by_item(pairs)
        human["pairwise"] = human_accuracy(
            preferences, lambda item_id: two_order_prefer(grouped.get(item_id, []))
        )
    rescaled = [c for c in criteria.values() if c is not None and c.rescaled_from is not None]
    return PC2Report(
        judge=name,
        items=len(criteria),
        criteria_failed=sum(c is None for c in criteria.values()),
        criteria_rescaled=len(rescaled),
        pointwise={m: summarize(s, "exclude") for m, s in sorted(by_model.items())},
        pairwise=win_counts(pairs),
        position=position_report(pairs) if pairs else None,
        human=human,
    )
