"""Small runs for the comparison tests: items with two checks and a `topic` tag, each model's
verdicts given as each item's (check 1, check 2) results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore

Results = Sequence[tuple[bool | None, bool | None] | None]
"""Per item: the two checks' results, or None where the model did not answer."""


def item(k: int, prefix: str = "i") -> Item:
    return Item(
        id=f"{prefix}{k}",
        messages=[Message(role="user", content=f"question {k}")],
        checklist=[Check(id="c1", text=f"first check of {k}"), Check(id="c2", text="second")],
        tags={"topic": ["odd" if k % 2 else "even"]},
    )


def make_run(
    path: Path,
    models: Mapping[str, Results],
    *,
    judge: str = "judge-a",
    prefix: str = "i",
) -> Path:
    """A run of len(results) items, each model's answers and `judge`'s verdicts on them."""
    size = max(len(results) for results in models.values())
    with RunStore(path) as store:
        store.add_items(item(k, prefix) for k in range(size))
        for model, results in models.items():
            for k, found in enumerate(results):
                if found is None:
                    continue
                item_id = f"{prefix}{k}"
                store.put_response(
                    Response(item_id=item_id, model=model, content=f"<b>{model}</b> {k}")
                )
                store.put_verdicts(
                    Verdict(item_id=item_id, model=model, judge=judge, check_id=check, passed=met)
                    for check, met in zip(("c1", "c2"), found, strict=True)
                )
    return path
