"""Runs resume after SIGKILL without repeating finished calls; identical requests hit the store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checkbench import api
from checkbench.errors import InputError
from checkbench.llm import ModelOptions
from checkbench.store import RunStore
from checkbench.testing import CANNED, OpenAIServer, Reply, completion
from tests.support.run_contents import count_rows, kill_once


def _bench(path: Path, n: int, *, same_text: bool = False) -> Path:
    with path.open("w") as out:
        for i in range(n):
            text = "same question" if same_text else f"question {i}"
            record = {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": text}],
                "checklist": [{"id": "c1", "text": "answers"}],
            }
            out.write(json.dumps(record) + "\n")
    return path


def _generate_cmd(bench: Path, out: Path, base_url: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "checkbench",
        "generate",
        str(bench),
        "--out",
        str(out),
        "--model",
        "openai:stub",
        "--base-url",
        base_url,
        "--concurrency",
        "4",
    ]


def test_sigkill_mid_run_then_rerun_finishes_without_repeats(tmp_path: Path) -> None:
    n, concurrency = 80, 4
    bench = _bench(tmp_path / "bench.jsonl", n)
    out = tmp_path / "run"
    db = out / "run.sqlite"
    with OpenAIServer(Reply(delay_s=0.05, body=completion("answer"))) as server:
        proc = subprocess.Popen(
            _generate_cmd(bench, out, server.base_url), stderr=subprocess.DEVNULL
        )
        kill_once(proc, db, "SELECT COUNT(*) FROM responses", 15)
        answered_before = count_rows(db, "SELECT COUNT(*) FROM responses")
        sent_before = len(server.requests)
        assert answered_before < n

        rerun = subprocess.run(
            _generate_cmd(bench, out, server.base_url), capture_output=True, text=True
        )
        assert rerun.returncode == 0, rerun.stderr
        assert f"{answered_before} already done" in rerun.stdout.replace("\n", " ")
        sent_after_resume = len(server.requests) - sent_before

        again = subprocess.run(
            _generate_cmd(bench, out, server.base_url), capture_output=True, text=True
        )
        assert again.returncode == 0
        assert len(server.requests) - sent_before == sent_after_resume

    assert count_rows(db, "SELECT COUNT(*) FROM responses WHERE ok") == n
    assert count_rows(db, "SELECT COUNT(*) FROM calls WHERE status = 'ok'") == n
    assert count_rows(db, "SELECT COUNT(DISTINCT item_id) FROM responses") == n
    # Only the calls in flight at the kill may be paid twice.
    assert sent_before + sent_after_resume <= n + concurrency
    assert sent_after_resume >= n - answered_before - concurrency


def test_identical_requests_are_served_from_the_store(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "bench.jsonl", 5, same_text=True)
    with OpenAIServer(CANNED) as server:
        summary = api.generate(
            bench,
            ["openai:stub"],
            tmp_path / "run",
            options=ModelOptions(base_url=server.base_url, concurrency=1),
        ).stage
        assert len(server.requests) == 1
    assert (summary.called, summary.cached, summary.errors) == (1, 4, 0)
    with RunStore(tmp_path / "run") as store:
        assert {r.content for r in store.responses()} == {"canned answer"}
        assert len(store.responses()) == 5


def test_concurrency_limit_is_respected(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "bench.jsonl", 30)
    with OpenAIServer(Reply(delay_s=0.05, body=completion())) as server:
        api.generate(
            bench,
            ["openai:stub"],
            tmp_path / "run",
            options=ModelOptions(base_url=server.base_url, concurrency=3),
        )
        assert server.max_in_flight == 3
        assert len(server.requests) == 30


def test_failed_calls_are_recorded_and_retried_on_rerun(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "bench.jsonl", 3)
    out = tmp_path / "run"
    with OpenAIServer(Reply(status=400, body={"error": "nope"})) as server:
        first = api.generate(
            bench, ["openai:stub"], out, options=ModelOptions(base_url=server.base_url)
        ).stage
        server.answer = Reply(body=completion("now fine"))
        second = api.generate(
            bench, ["openai:stub"], out, options=ModelOptions(base_url=server.base_url)
        ).stage
    assert (first.errors, second.errors, second.already_done, second.called) == (3, 0, 0, 3)
    with RunStore(out) as store:
        assert [(u.calls, u.errors) for u in store.usage()] == [(3, 3)]
        assert all(r.content == "now fine" and r.error is None for r in store.responses())


@pytest.mark.parametrize(("version", "says"), [(99, "newer checkbench"), (0, "older checkbench")])
def test_a_store_of_another_layout_version_is_refused(tmp_path, version, says) -> None:
    with RunStore(tmp_path) as store:
        store.set_meta("schema_version", version)
    with pytest.raises(InputError, match=says) as caught:
        RunStore(tmp_path)
    assert "run.sqlite" in str(caught.value)
