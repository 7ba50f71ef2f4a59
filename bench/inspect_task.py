"""The inspect_ai side of bench/bench_inspect.py: generate, then one model-graded call per sample.

Runs in the inspect venv (bench/setup_inspect.sh), never in checkbench's environment. It reads
the same JSONL items checkbench reads (`id`, `messages`, `checklist`): the sample's input is the
conversation, its target the checklist, graded in one call by `model_graded_qa`.

    inspect eval bench/inspect_task.py -T items=bench.jsonl --model openai-api/instant/instant
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import generate

_ROLES = {"user": ChatMessageUser, "assistant": ChatMessageAssistant, "system": ChatMessageSystem}


def _sample(record: dict[str, Any]) -> Sample:
    """One checkbench item as an inspect sample: its checklist becomes the grading criterion."""
    messages = [_ROLES[m["role"]](content=m["content"]) for m in record["messages"]]
    criterion = "\n".join(f"- {check['text']}" for check in record["checklist"])
    return Sample(id=record["id"], input=messages, target=criterion)


@task
def checklist_items(items: str) -> Task:
    """The items of `items` (checkbench JSONL), generated then graded by the same model."""
    lines = Path(items).read_text(encoding="utf-8").splitlines()
    samples = [_sample(json.loads(line)) for line in lines if line.strip()]
    return Task(
        dataset=MemoryDataset(samples, name="checklist_items"),
        solver=generate(),
        scorer=model_graded_qa(),
    )


def scored_samples(log_dir: str) -> int:
    """Samples scored by the successful evals logged in `log_dir` (-1 when one failed)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    total = 0
    for info in list_eval_logs(log_dir):
        log = read_eval_log(info, header_only=True)
        if log.status != "success" or log.results is None:
            return -1
        scores = log.results.scores
        total += scores[0].scored_samples if scores else log.results.completed_samples
    return total


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "--scored":
        raise SystemExit("usage: python inspect_task.py --scored LOG_DIR")
    print(scored_samples(sys.argv[2]))
