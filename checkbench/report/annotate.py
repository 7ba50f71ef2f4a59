"""`checkbench view RUN --annotate`: the /annotate page where a person marks checks pass or
fail, with an optional note, in the order of the label queue.

The page is built once per server with a fresh CSRF token in it; the server takes a label
only from a POST that carries that token and comes from its own origin (see `server`).
Texts reach the page as JSON and are shown with textContent only."""

from __future__ import annotations

import html
import secrets
import threading
from typing import Any

from pydantic import ValidationError

from checkbench.judges.label_queue import QueueEntry, build_queue
from checkbench.report.page import ASSETS, Page, content_security_policy, script_json
from checkbench.store import RunStore
from checkbench.store.labels import human_judge, new_label, put_label

MAX_ENTRIES = 100
"""Most queue entries one request may ask for."""
LABEL_FIELDS = {"item_id", "model", "sample", "check_id", "passed", "note"}

_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>Label checks: {title}</title><style>{style}</style></head>
<body><header><h1>Label checks as <span data-role="annotator">{annotator}</span></h1>
<p data-role="status">Loading the queue...</p></header>
<nav class="pager"><button type="button" data-role="prev">Previous</button>
<span data-role="range"></span><button type="button" data-role="next">Next</button></nav>
<main data-role="queue"></main>
<script type="application/json" id="cb-annotate">{config}</script>
<script>{script}</script></body></html>
"""


class AnnotationError(Exception):
    """A label request the server refuses: its HTTP status and one line why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Annotation:
    """One annotator's labelling session over a run opened for writing: the queue (built
    once), the page with its CSRF token, and the label reads and writes, one at a time."""

    def __init__(self, store: RunStore, annotator: str) -> None:
        self.judge = human_judge(annotator)
        self.annotator = annotator
        self.store = store
        self.token = secrets.token_urlsafe(32)
        self.queue = build_queue(store)
        self._entries = {(e.item_id, e.model, e.sample, e.check_id): e for e in self.queue}
        self._lock = threading.Lock()
        self.page = _page(self.token, annotator, str(store.run_dir.name))

    def entries(self, offset: int, limit: int) -> dict[str, Any]:
        """Queue entries [offset, offset + limit) with their texts and this annotator's
        labels, and how many checks this annotator has labelled."""
        if offset < 0 or not 1 <= limit <= MAX_ENTRIES:
            raise AnnotationError(400, f"give an offset >= 0 and a limit of 1 to {MAX_ENTRIES}")
        chosen = self.queue[offset : offset + limit]
        with self._lock:
            units = self._units(chosen)
            labelled = self.store.verdict_counts(self.judge)[0]
        return {
            "total": len(self.queue),
            "offset": offset,
            "labelled": labelled,
            "entries": [_entry(e, units[e.item_id, e.model, e.sample]) for e in chosen],
        }

    def _units(self, chosen: list[QueueEntry]) -> dict[tuple[str, str, int], list[Any]]:
        """(item id, model, sample) -> [item, response, this annotator's verdicts]."""
        positions = sorted({e.position for e in chosen})
        units: dict[tuple[str, str, int], list[Any]] = {}
        records = self.store.item_records(positions, [self.judge]) if positions else []
        for item, responses, verdicts in records:
            for response in responses:
                units[item.id, response.model, response.sample] = [item, response, []]
            for verdict in verdicts:
                units[verdict.item_id, verdict.model, verdict.sample][2].append(verdict)
        return units

    def label(self, body: Any) -> dict[str, Any]:
        """Keep one label sent by the page: {item_id, model, sample, check_id, passed, note}."""
        if not isinstance(body, dict) or not set(body) <= LABEL_FIELDS:
            raise AnnotationError(400, f"send a JSON object with fields {sorted(LABEL_FIELDS)}")
        if not isinstance(body.get("passed"), bool):
            raise AnnotationError(400, "passed: true or false")
        try:
            label = new_label(self.annotator, **body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise AnnotationError(400, f"{where}: {first['msg']}") from None
        entry = self._entries.get((label.item_id, label.model, label.sample, label.check_id))
        if entry is None:
            raise AnnotationError(404, "no such check of a usable answer in this run")
        label = label.model_copy(update={"queue_reason": "; ".join(entry.reasons)})
        with self._lock:
            put_label(self.store, label)
            labelled = self.store.verdict_counts(self.judge)[0]
        return {"saved": True, "labelled": labelled}


def _entry(entry: QueueEntry, unit: list[Any]) -> dict[str, Any]:
    item, response, verdicts = unit
    check = next(c for c in item.checklist if c.id == entry.check_id)
    mine = next((v for v in verdicts if v.check_id == entry.check_id), None)
    return {
        "item_id": entry.item_id,
        "model": entry.model,
        "sample": entry.sample,
        "check_id": entry.check_id,
        "check": check.text,
        "reasons": list(entry.reasons),
        "messages": [[m.role, m.content] for m in item.messages],
        "reference": item.reference,
        "response": response.content or "",
        "label": None if mine is None else {"passed": mine.passed, "note": mine.reason},
    }


def _page(token: str, annotator: str, run: str) -> Page:
    script = (ASSETS / "annotate.js").read_text(encoding="utf-8")
    style = (ASSETS / "annotate.css").read_text(encoding="utf-8")
    if "</" in script or "</" in style:
        raise ValueError("inline assets must not contain '</'")
    policy = content_security_policy(script, style, served=True)
    text = _TEMPLATE.format(
        csp=policy,
        title=html.escape(run),
        style=style,
        annotator=html.escape(annotator),
        config=script_json({"token": token, "annotator": annotator}),
        script=script,
    )
    return Page(text, policy)
