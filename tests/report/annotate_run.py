"""A small run to label, built by hand: 12 items of two checks, two models, two judges that
disagree on every third item's first check, and hostile text in one response and one check."""

from __future__ import annotations

from pathlib import Path

from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
HOSTILE_ITEM = "q5"
MODELS = ("m1", "m2")
JUDGES = ("j", "k")


def build_labelling_run(run_dir: Path) -> list[Item]:
    """Write the run; return its items."""
    items = [
        Item(
            id=f"q{i}",
            messages=[Message(role="user", content=f"task {i}")],
            checklist=[
                Check(id="c1", text=HOSTILE if i == 5 else f"does task {i}"),
                Check(id="c2", text="says why"),
            ],
        )
        for i in range(12)
    ]
    with RunStore(run_dir) as store:
        store.add_items(items)
        for model in MODELS:
            for item in items:
                content = HOSTILE if item.id == HOSTILE_ITEM else f"answer {item.id}"
                store.put_response(Response(item_id=item.id, model=model, content=content))
        store.put_verdicts(
            Verdict(
                item_id=item.id,
                model=model,
                judge=judge,
                check_id=c.id,
                passed=not (judge == "k" and c.id == "c1" and i % 3 == 0),
            )
            for i, item in enumerate(items)
            for model in MODELS
            for judge in JUDGES
            for c in item.checklist
        )
    return items
