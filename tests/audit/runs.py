"""Runs built for the audit's tests: FB-Bench-shaped items (so the FB-Bench leaderboard scores
them) whose verdicts follow a rule per check, and the published FB-Bench judgments imported."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from checkbench.fbbench.api import import_fbbench_judgments
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore
from tests.conftest import ROOT

JUDGMENTS = ROOT.parent / "shared" / "data" / "fb-bench" / "model_judgment" / "gpt-4o-2024-08-06"
needs_fbbench = pytest.mark.skipif(not JUDGMENTS.is_dir(), reason="FB-Bench released files absent")

Rule = Callable[[int, str, str, int, str], bool | None]
"""(model index, item id, check id, sample, judge) -> the verdict (None = unscored)."""


def item(item_id: str, texts: Sequence[str], k: int, prompt: str = "What year was it?") -> Item:
    """An FB-Bench-shaped item of three weighted checks (0.5, 0.25, 0.25)."""
    return Item(
        id=item_id,
        messages=[Message(role="user", content=prompt)],
        checklist=[
            Check(id=f"c{n + 1}", text=text, weight=weight)
            for n, (text, weight) in enumerate(zip(texts, (0.5, 0.25, 0.25), strict=True))
        ],
        rule="weighted",
        tags={"scenario": ["EC" if k % 2 else "RM"], "task": [f"t{k % 3}"]},
    )


def build_run(
    run_dir: Path,
    items: Sequence[Item],
    models: int,
    rule: Rule,
    *,
    samples: int = 1,
    judges: Sequence[str] = ("judge-a",),
) -> Path:
    """A run of `models` models (m0, m1, ...) on `items`, every check judged by `rule`."""
    with RunStore(run_dir) as store:
        store.add_items(items)
        verdicts = []
        for m in range(models):
            for it in items:
                for s in range(samples):
                    store.put_response(
                        Response(item_id=it.id, model=f"m{m}", sample=s, content="an answer")
                    )
                    for judge in judges:
                        for check in it.checklist:
                            verdicts.append(
                                Verdict(
                                    item_id=it.id,
                                    model=f"m{m}",
                                    sample=s,
                                    judge=judge,
                                    check_id=check.id,
                                    passed=rule(m, it.id, check.id, s, judge),
                                )
                            )
        store.put_verdicts(verdicts)
    return run_dir


WORDS = (
    "apples",
    "volcanoes",
    "tax law",
    "the moon landing",
    "jazz",
    "photosynthesis",
    "Rome",
    "prime numbers",
    "glaciers",
    "chess openings",
    "vaccines",
    "the printing press",
)


def plain_items(n: int) -> list[Item]:
    """Items of three distinct ordinary checks each."""
    return [
        item(f"i{k}", [f"Does it mention {WORDS[(3 * k + j) % len(WORDS)]}?" for j in range(3)], k)
        for k in range(n)
    ]


def ability_rule(m: int, item_id: str, check_id: str, sample: int, judge: str) -> bool:
    """An ordinary check: passed by the models from a threshold on (m0 weakest), the threshold
    1 to 4 by check, so that it discriminates positively and never passes or fails for all."""
    threshold = 1 + (int(item_id[1:]) * 3 + int(check_id[1:])) % 4
    return m >= threshold


def import_fbbench(run_dir: Path) -> Path:
    import_fbbench_judgments(JUDGMENTS, run_dir)
    return run_dir
