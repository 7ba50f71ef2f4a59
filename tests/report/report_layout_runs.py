"""Runs for the report's layout tests, built by hand through the RunStore API.

`build_many` is a judged FB-Bench run with 30 models (names of very different lengths, some
differing only near their end), two judges with long ids (one a `#logprob` judge), taxonomy
tags, meta-evaluation records for both judges, and responses holding fenced and inline code.
`build_one_scenario` has error-correction items only, so there is no EC-vs-RM plot to draw.
"""

from __future__ import annotations

from pathlib import Path

from checkbench import api
from checkbench.ifrewardbench.run import REPORT_RECORD as META_REPORT
from checkbench.schema import Check, Item, Message, Response, Usage, Verdict
from checkbench.store import RunStore
from tests.conftest import ROOT

FAMILIES = [
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.1-70B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "Qwen/Qwen2.5-72B-Instruct",
    "mistralai/Mistral-Small-24B-Instruct-2501",
    "gpt-4o-mini",
    "gpt-4o",
    "claude-3-5-haiku",
    "gemma-2-9b-it",
    "phi-4",
]
MODELS = [f"{name}-v{k}" if k else name for k in range(3) for name in FAMILIES]
"""30 model names: ten families, each in three versions."""
JUDGES = ["local:SmolLM2-135M-Instruct.Q4_1", "local:SmolLM2-135M-Instruct.Q4_1#logprob"]
TASKS = ["Mathematics", "Coding", "Knowledge Q&A", "Text Creation"]
TAXONOMY = [
    "coding/debugging/logic errors",
    "coding/code generation/algorithms",
    "mathematics/calculation/algebra",
    "writing/creative writing/poetry",
]
CODE_RESPONSE = (
    "Use `sorted(xs, key=len)` here:\n\n```python\ndef shortest(xs):\n"
    "    return sorted(xs, key=len)[0]  # a deliberately long comment that runs past the width\n"
    "```\n\nThen call `shortest(words)`."
)
N_ITEMS = 32
META_FILE = ROOT / "examples" / "ifrewardbench-mini.json"


def _item(i: int, scenarios: tuple[str, ...]) -> Item:
    scenario = scenarios[i % len(scenarios)]
    task = TASKS[(i // len(scenarios)) % len(TASKS)]
    return Item(
        id=f"{scenario.lower()}-{task[:4].lower()}-{i}",
        messages=[
            Message(role="user", content=f"Write `f({i})` in Python."),
            Message(role="assistant", content=f"```python\nprint(f({i}))\n```"),
            Message(role="user", content="That is wrong." if scenario == "EC" else "Sure?"),
        ],
        checklist=[
            Check(id="c1", text=f"Fixes `f({i})`", weight=0.5 if scenario == "EC" else None),
            Check(id="c2", text="Explains the fix", weight=0.5 if scenario == "EC" else None),
        ],
        rule="weighted" if scenario == "EC" else "any",
        tags={
            "scenario": [scenario],
            "task": [task],
            "feedback_type": ["Pointing Out Errors" if i % 3 else "Simple Questioning"],
            "taxonomy": [TAXONOMY[i % len(TAXONOMY)]],
        },
    )


def _passed(m: int, i: int, k: int, j: int) -> bool | None:
    """Model m passes a share of checks that falls with m, a little differently per judge."""
    if (i + m + k + j) % 23 == 0:
        return None
    return (i * 7 + k * 3 + m * 5 + j) % 31 >= m + (i % 4) * 2


def build(run_dir: Path, models: list[str], scenarios: tuple[str, ...], meta: bool) -> list[str]:
    """Write the run; returns the item ids."""
    items = [_item(i, scenarios) for i in range(N_ITEMS)]
    verdicts: list[Verdict] = []
    with RunStore(run_dir) as store:
        store.add_items(items)
        store.set_meta("benchmark", "layout test run")
        store.set_meta(
            "judges",
            {
                JUDGES[0]: {"mode": "text", "prompts": ["checklist_judge_en@9"]},
                JUDGES[1]: {"mode": "logprob", "prompts": ["checklist_judge_en@9"]},
            },
        )
        with store.transaction():
            for m, model in enumerate(models):
                for i, item in enumerate(items):
                    content = CODE_RESPONSE if i == 1 else f"Answer {i} from {model}."
                    store.put_response(
                        Response(
                            item_id=item.id,
                            model=model,
                            content=content,
                            usage=Usage(prompt_tokens=40, completion_tokens=10),
                            latency_s=0.5,
                        )
                    )
                    for j, judge in enumerate(JUDGES):
                        for k, check in enumerate(item.checklist):
                            passed = _passed(m, i, k, j)
                            verdicts.append(
                                Verdict(
                                    item_id=item.id,
                                    model=model,
                                    judge=judge,
                                    check_id=check.id,
                                    passed=passed,
                                    reason=f"The `answer` is {'right' if passed else 'wrong'}.",
                                    raw="{not json" if passed is None else None,
                                    p_yes=0.8 if j else None,
                                )
                            )
        store.put_verdicts(verdicts)
        if meta:
            report = api.meta_report(META_FILE, b=50)
            for judge in JUDGES:
                store.put_record(META_REPORT, judge, report)
    return [item.id for item in items]


def build_many(run_dir: Path) -> list[str]:
    return build(run_dir, MODELS, ("EC", "RM"), meta=True)


def build_one_scenario(run_dir: Path) -> list[str]:
    return build(run_dir, MODELS[:4], ("EC",), meta=False)
