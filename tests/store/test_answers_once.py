"""Each answer is stored once (in its call; the response names it), and no answer over the
size limit is stored at all."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from checkbench import api
from checkbench.llm import ModelOptions
from checkbench.llm.base import MAX_ANSWER_BYTES
from checkbench.store import STORE_FILE, RunStore
from checkbench.testing import OpenAIServer, completion

ANSWER = "A long answer, stored once: " + "é" * 3000


def _bench(path: Path, n: int) -> Path:
    lines = [
        {"id": f"q{i}", "messages": [{"role": "user", "content": f"Question {i}?"}]}
        | {"checklist": [{"id": "c1", "text": "Answers it?"}]}
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _answer(body: dict[str, Any], _headers: dict[str, str]) -> tuple[int, Any]:
    question = body["messages"][-1]["content"]
    return 200, completion(f"{ANSWER} ({question})")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-answers-once-0123456789")


def test_an_answer_is_kept_in_its_call_only_and_reads_back_whole(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with OpenAIServer(_answer) as server:
        spec = f"openai:m@{server.base_url}"
        api.generate(_bench(tmp_path / "b.jsonl", 3), [spec], run_dir)
        api.generate(tmp_path / "b.jsonl", [spec], run_dir)  # resumed: nothing asked again
        assert len(server.requests) == 3
    with RunStore.existing(run_dir) as store:
        answers = {r.item_id: r.content for r in store.responses()}
        assert answers == {f"q{i}": f"{ANSWER} (Question {i}?)" for i in range(3)}
        [(_, [response], _)] = store.item_records([1], [])
        assert response.content == answers["q1"]
        assert store.search_items("question 2?)", []) == [2]
        assert store.damaged_row() is None
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        stored = db.execute("SELECT body ->> '$.content', call FROM responses").fetchall()
        held = db.execute("SELECT COUNT(*) FROM calls WHERE instr(result, ?) > 0", (ANSWER,))
        assert held.fetchone()[0] == 3
    assert {content for content, _ in stored} == {""} and all(call for _, call in stored)


def test_an_answer_over_the_limit_is_a_failed_call_never_stored(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    limit = len(ANSWER.encode())  # every answer is a little longer
    assert MAX_ANSWER_BYTES >= 4 * 1024 * 1024
    with OpenAIServer(_answer) as server:
        summary = api.generate(
            _bench(tmp_path / "b.jsonl", 2),
            [f"openai:m@{server.base_url}"],
            run_dir,
            options=ModelOptions(max_answer_bytes=limit),
        ).stage
    assert summary.errors == 2 and summary.failed_calls == 2
    with RunStore.existing(run_dir) as store:
        [row] = store.usage()
        assert (row.calls, row.errors) == (0, 2)
        errors = store.response_errors()
    [(error, count)] = errors.items()
    assert count == 2 and f"over the limit of {limit} (max_answer_bytes)" in error
    assert ANSWER[:40] not in (run_dir / STORE_FILE).read_bytes().decode(errors="replace")
