"""A small FB-Bench run built by hand through the RunStore API, for the report tests.

260 items (past one embedded chunk of 250 and several pages of 50), three models, one judge.
The run holds every case the report must show: passes, fails, unscored verdicts, a failed
answer, meta-evaluation records, taxonomy tags, and hostile text in a response, a reason, a
check, a message, a tag and a model name.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from checkbench import api
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.ifrewardbench.pairwise import pairwise_report
from checkbench.ifrewardbench.run import REPORT_RECORD as META_REPORT
from checkbench.judges.human import AGREEMENT_RECORD, JudgeAgreement
from checkbench.llm.base import ChatRequest, ChatResult
from checkbench.schema import Check, Item, Message, PairVerdict, Response, Usage, Verdict
from checkbench.stats.agreement import verdict_agreement
from checkbench.steps.caller import call_record
from checkbench.store import RunStore
from tests.conftest import ROOT, free_port

JUDGE = "judge-x"
PAIR_JUDGE = "pair-judge"
HOSTILE_MODEL = '<img src=x onerror="window.__pwned=3">'
MODELS = ["model-a", "model-b", HOSTILE_MODEL]
HOSTILE_RESPONSE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    "</textarea></script><svg onload=alert(1)>\u2028end"
)
HOSTILE_REASON = "</script><script>window.__pwned=5</script><b onclick=alert(2)>bold</b>"
HOSTILE_ITEM = "ec-hostile-10"
TASKS = ["Mathematics", "Coding", "Knowledge Q&A", "Text Creation"]
FEEDBACK = ["Pointing Out Errors", "Simple Questioning", "<i>Misinformation</i>"]
TAXONOMY = [  # paths of examples/taxonomy-mini.json
    "coding/debugging/logic errors",
    "coding/code generation/algorithms",
    "mathematics/calculation/algebra",
    "writing/creative writing/poetry",
]
N_ITEMS = 260
META_FILE = ROOT / "examples" / "ifrewardbench-mini.json"


@dataclass
class Expected:
    """What the run holds, worked out while building it (not by the report code)."""

    run_dir: Path
    items: list[str] = field(default_factory=list)
    unscored: dict[str, set[str]] = field(default_factory=dict)
    """model -> ids of items with an unscored verdict."""
    failed: dict[str, set[str]] = field(default_factory=dict)
    """model -> ids of items the model gave no usable answer to."""
    tagged: dict[str, set[str]] = field(default_factory=dict)
    """task -> ids of items with that task tag."""


def _item(i: int) -> Item:
    ec = i % 2 == 0
    task = TASKS[i % len(TASKS)]
    item_id = HOSTILE_ITEM if i == 5 * 2 else f"{'ec' if ec else 'rm'}-{task[:4].lower()}-{i}"
    weights = [0.6, 0.4] if ec else [None, None]
    return Item(
        id=item_id,
        messages=[
            Message(role="user", content=f"Question {i}: what is {i} + {i}? <!-- keep -->"),
            Message(role="assistant", content=f"{i} + {i} = {2 * i + (1 if ec else 0)}."),
            Message(role="user", content="That is wrong.</textarea>" if ec else "Sure?"),
        ],
        checklist=[
            Check(id="c1", text=f"States that {i} + {i} = {2 * i}", weight=weights[0]),
            Check(id="c2", text="Keeps <b onmouseover=alert(3)>calm</b>", weight=weights[1]),
        ],
        rule="weighted" if ec else "any",
        tags={
            "scenario": ["EC" if ec else "RM"],
            "task": [task],
            "subtask": [f"{task} {i % 3}"],
            "feedback_type": [FEEDBACK[i % len(FEEDBACK)]],
            "deficiency": ["Logical Error"] if ec else [],
            "taxonomy": [TAXONOMY[i % len(TAXONOMY)]],
        },
        meta={"language": "en"},
    )


def _passed(model: int, i: int, check: int) -> bool | None:
    """A fixed pattern: model-a passes more than model-b; every 17th unit is unscored."""
    if (i + model) % 17 == 0 and check == 1:
        return None
    return (i * (check + 2) + model * 3) % (5 + model) < 3 + (2 - model)


def _record_calls(store: RunStore) -> None:
    request = ChatRequest(messages=(Message(role="user", content="x"),), max_tokens=4)
    for n, (model, role, tokens) in enumerate(
        [("model-a", "candidate", 900), ("model-b", "candidate", 700), (JUDGE, "judge", 2000)]
    ):
        result = ChatResult(content="y", prompt_tokens=tokens, completion_tokens=tokens // 4)
        store.record_call(
            call_record(
                f"k{n}",
                model,
                role,
                request,
                result,
                None,
                1.5,
            )
        )


def _pair_verdicts() -> list[PairVerdict]:
    """Every pair of every instruction in both orders: a third won by whichever response was
    shown first (position bias), a third won by the same response both times, a third tied."""
    verdicts = []
    for record in load_ifrewardbench(META_FILE):
        ids = [r.response_id for r in record.responses]
        for n, (x, y) in enumerate(itertools.combinations(ids, 2)):
            forward, backward = [("a", "a"), ("a", "b"), ("tie", "tie")][n % 3]
            for a, b, winner in ((x, y, forward), (y, x, backward)):
                verdicts.append(
                    PairVerdict(item_id=record.item.id, judge=PAIR_JUDGE, a=a, b=b, winner=winner)
                )
    return verdicts


def position_bias_rate() -> float:
    """The share of pairs `_pair_verdicts` has won by the first-shown response both times."""
    pairs = [
        n
        for record in load_ifrewardbench(META_FILE)
        for n, _ in enumerate(itertools.combinations(record.responses, 2))
    ]
    return sum(n % 3 == 0 for n in pairs) / len(pairs)


def build_run(run_dir: Path) -> Expected:
    """Write the run and return what it holds."""
    expected = Expected(run_dir=run_dir)
    items = [_item(i) for i in range(N_ITEMS)]
    verdicts: list[Verdict] = []
    with RunStore(run_dir) as store:
        store.add_items(items)
        store.set_meta("benchmark", "hand-built report test run")
        store.set_meta("judges", {JUDGE: {"mode": "text", "prompts": ["checklist_judge_en@9"]}})
        with store.transaction():
            for m, model in enumerate(MODELS):
                expected.unscored[model], expected.failed[model] = set(), set()
                for i, item in enumerate(items):
                    failed = model == "model-b" and i % 50 == 7
                    content = HOSTILE_RESPONSE if item.id == HOSTILE_ITEM else f"Answer {i}."
                    store.put_response(
                        Response(
                            item_id=item.id,
                            model=model,
                            content=None if failed else content,
                            error="HTTP 500" if failed else None,
                            usage=Usage(prompt_tokens=40, completion_tokens=10),
                            latency_s=0.5,
                        )
                    )
                    if failed:
                        expected.failed[model].add(item.id)
                        continue
                    for k, check in enumerate(item.checklist):
                        passed = _passed(m, i, k)
                        if passed is None:
                            expected.unscored[model].add(item.id)
                        reason = HOSTILE_REASON if item.id == HOSTILE_ITEM else f"reason {i}.{k}"
                        verdicts.append(
                            Verdict(
                                item_id=item.id,
                                model=model,
                                judge=JUDGE,
                                check_id=check.id,
                                passed=passed,
                                reason="" if passed is None else reason,
                                raw="{not json" if passed is None else None,
                            )
                        )
        store.put_verdicts(verdicts)
        _record_calls(store)
        meta = api.meta_report(META_FILE, b=200)
        store.put_record(META_REPORT, JUDGE, meta)
        pairwise = pairwise_report(load_ifrewardbench(META_FILE), _pair_verdicts(), b=200, seed=0)
        with_pairs = meta.model_copy(update={"pairwise": pairwise})
        store.put_record(META_REPORT, PAIR_JUDGE, with_pairs)
        human = [v.model_copy(update={"judge": "human", "passed": True}) for v in verdicts[:80]]
        agreement = verdict_agreement(human, verdicts, b=200)
        store.put_record(AGREEMENT_RECORD, JUDGE, JudgeAgreement(judge=JUDGE, **dict(agreement)))
    expected.items = [item.id for item in items]
    for item in items:
        expected.tagged.setdefault(item.tag("task")[0], set()).add(item.id)
    return expected


@contextmanager
def serving(run_dir: Path, *options: str) -> Iterator[str]:
    """`checkbench view RUN_DIR [OPTIONS]` on a free loopback port in a subprocess; yields its
    URL."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "checkbench",
            "view",
            str(run_dir),
            "--port",
            str(free_port()),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "300", "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, f"no address from checkbench view: {line}{proc.stdout.read()}"
        yield url.group(0)
    finally:
        proc.terminate()
        proc.wait(10)


def build_plain(run_dir: Path, judged: bool) -> list[Item]:
    """Items without FB-Bench tags (a Conv-to-Bench style run), judged or not."""
    items = [
        Item(
            id=f"q{i}",
            messages=[Message(role="user", content=f"task {i}")],
            checklist=[Check(id="c1", text="does it"), Check(id="c2", text="well")],
            tags={"topic": ["code" if i % 2 else "math"]},
        )
        for i in range(12)
    ]
    with RunStore(run_dir) as store:
        store.add_items(items)
        for model in ("m1", "m2"):
            for item in items:
                store.put_response(Response(item_id=item.id, model=model, content="ok"))
        if judged:
            store.put_verdicts(
                Verdict(item_id=item.id, model=model, judge="j", check_id=c.id, passed=i % 3 > 0)
                for i, item in enumerate(items)
                for model in ("m1", "m2")
                for c in item.checklist
            )
    return items
