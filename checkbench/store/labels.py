"""Human labels: a person's pass or fail on one check of one response, kept in the run as the
verdicts of the judge `human:NAME` (so every verdict reader sees them) and as a label record
saying who labelled what and when. A label never touches another judge's verdict; labelling a
check again replaces only that person's label.

The readers here walk the store's tables directly (they belong to the store package), so the
label queue reads its signals in columns, without a model per verdict."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence

from pydantic import BaseModel, Field

from checkbench.errors import InputError
from checkbench.schema import Sample, Verdict
from checkbench.store.records import RecordKind
from checkbench.store.run_store import RunStore

HUMAN_PREFIX = "human:"
"""The judge ids of people: `human:NAME`."""
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
"""An annotator's name: a letter or digit, then up to 63 letters, digits or . _ @ -."""
MAX_NOTE = 2000
"""Most characters of a label's note."""


class HumanLabel(BaseModel):
    """One person's label on one check of one response, with who gave it and when."""

    annotator: str
    item_id: str
    model: str
    sample: Sample = 0
    check_id: str
    passed: bool
    note: str = Field(default="", max_length=MAX_NOTE)
    at: float
    """When, in seconds since the epoch (UTC)."""
    queue_reason: str = ""
    """Why the queue offered the check (empty when it was labelled outside the queue)."""

    @property
    def judge(self) -> str:
        return human_judge(self.annotator)

    def key(self) -> str:
        return json.dumps([self.annotator, self.item_id, self.model, self.sample, self.check_id])


LABEL_RECORD = RecordKind("human_label", HumanLabel)
"""Record kind of the human labels, by [annotator, item, model, sample, check] as JSON."""


def human_judge(annotator: str) -> str:
    """The judge id of an annotator, after checking the name (InputError when it is bad)."""
    if not NAME_PATTERN.fullmatch(annotator):
        raise InputError(
            f"annotator name {annotator!r}: use 1 to 64 letters, digits or . _ @ - "
            "(starting with a letter or digit)",
            field="annotator",
        )
    return HUMAN_PREFIX + annotator


def is_human(judge: str) -> bool:
    """Whether a judge id is a person's (`human:NAME`)."""
    return judge.startswith(HUMAN_PREFIX)


def model_judges(judges: Sequence[str]) -> list[str]:
    """The judges that are not people: what a command picks when none is named."""
    return [judge for judge in judges if not is_human(judge)]


def put_label(store: RunStore, label: HumanLabel) -> None:
    """Keep a label: the human judge's verdict and the label record land together, committed
    before this returns, replacing only this annotator's earlier label of the check."""
    verdict = Verdict(
        item_id=label.item_id,
        model=label.model,
        sample=label.sample,
        judge=label.judge,
        check_id=label.check_id,
        passed=label.passed,
        reason=label.note,
    )
    with store.transaction():
        store.put_verdicts([verdict])
        store.put_record(LABEL_RECORD, label.key(), label)


def labels(store: RunStore, annotator: str | None = None) -> list[HumanLabel]:
    """The run's labels (of one annotator, when named), the one given last at the end."""
    found = store.records(LABEL_RECORD).values()
    return [label for label in found if annotator is None or label.annotator == annotator]


def new_label(annotator: str, **fields: object) -> HumanLabel:
    """A label given now by `annotator` (validated like a stored one)."""
    return HumanLabel.model_validate({"annotator": annotator, "at": time.time(), **fields})


def labelled_units(store: RunStore) -> Iterator[tuple[int, str, str, int, str]]:
    """(item position, item id, model, sample, checks as stored) of every usable answer to an
    item with a checklist, by item position, model and sample: what a person may label."""
    return iter(
        store._db.execute(
            "SELECT i.position, r.item_id, r.model, r.sample, i.checks FROM responses r"
            " JOIN items i ON i.id = r.item_id WHERE r.ok AND i.checks != '[]'"
            " ORDER BY i.position, r.model, r.sample"
        )
    )


def verdict_signals(
    store: RunStore,
) -> Iterator[tuple[str, str, int, str, str, int | None, float | None]]:
    """(item id, model, sample, judge, check id, passed 1/0/None, P(yes) or None) of every
    verdict of a judge that is not a person, read in columns."""
    return iter(
        store._db.execute(
            "SELECT item_id, model, sample, judge, check_id, passed,"
            " IIF(json_valid(body), json_extract(body, '$.p_yes'), NULL) FROM verdicts"
            " WHERE substr(judge, 1, 6) != ?",
            (HUMAN_PREFIX,),
        )
    )
