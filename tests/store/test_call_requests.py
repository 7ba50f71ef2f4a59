"""The calls table keeps every request sent, compactly: the texts many requests share (a judge's
instructions, an answer's schema) once, named by digest from each request that sent them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from checkbench import api
from checkbench.llm import ModelOptions
from checkbench.store import SHARED_TEXTS
from checkbench.testing import OpenAIServer
from tests.llm.test_endpoints import bench


def _expanded(request: str, texts: dict[str, str]) -> dict[str, Any]:
    """A stored request with the texts it names by digest put back."""
    stored = json.loads(request)
    stored["messages"] = [
        {"role": m["role"], "content": texts[m["shared"]] if "shared" in m else m["content"]}
        for m in stored["messages"]
    ]
    if stored.get("json_schema") is not None:
        stored["json_schema"] = json.loads(texts[stored["json_schema"]])
    return stored


def test_stored_requests_give_back_every_request_sent(tmp_path: Path) -> None:
    items = bench(tmp_path / "b.jsonl", 3)
    run = tmp_path / "run"
    with OpenAIServer() as server:
        options = ModelOptions(base_url=server.base_url)
        api.generate(items, ["openai:cand"], run, options=options)
        api.judge(run, "openai:judge", options=options)
    with sqlite3.connect(run / "run.sqlite") as db:
        rows = db.execute("SELECT role, request FROM calls ORDER BY id").fetchall()
        kept = db.execute("SELECT key, body FROM records WHERE kind = ?", (SHARED_TEXTS.name,))
        texts = {key: json.loads(body) for key, body in kept}
    stored = [_expanded(request, texts) for _, request in rows]
    sent = server.requests
    assert len(stored) == len(sent) == 6
    for body, request in zip(sent, stored, strict=True):
        assert request["messages"] == body["messages"]
        assert (request["max_tokens"], request["temperature"]) == (
            body["max_tokens"],
            body["temperature"],
        )
        schema = body.get("response_format", {}).get("json_schema", {}).get("schema")
        assert request.get("json_schema") == schema
    # the judge's instructions and the checklist's schema, once each for three judge calls
    assert [role for role, _ in rows].count("judge") == 3
    assert len(texts) == 2
    pairs = zip(rows, sent, strict=True)
    judged = [(request, body) for (role, request), body in pairs if role == "judge"]
    assert all(len(request) < len(json.dumps(body)) / 2 for request, body in judged)
