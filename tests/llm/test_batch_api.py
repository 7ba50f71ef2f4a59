"""`--batch`: generation and judging through the OpenAI Batch API of a local server that
implements it (checkbench.testing), resumable across a SIGKILL, priced at the batch rate."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkbench import api
from checkbench.console.calls import usd
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.batch import JOURNAL_KIND, QUEUE_LIMIT, BatchBackend
from checkbench.llm.models_file import Price, parse_price
from checkbench.llm.openai_compat import OpenAIBackend
from checkbench.steps.pool import run_pool
from checkbench.store import RunStore
from checkbench.testing import Answer, BatchSettings, OpenAIServer, completion, echo_answer
from tests.conftest import ROOT, run_cli

KEY = "sk-batch-test-0123456789abcdef"
POLL = ["--batch", "--batch-poll", "0.001"]
ENV = {"PYTHONPATH": str(ROOT)}
"""The CLI runs in the run directories' parent: checkbench is found from the checkout."""


def bench(path: Path, questions: list[str]) -> Path:
    """A JSONL benchmark, one item with one check per question."""
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"q{n}",
                    "messages": [{"role": "user", "content": question}],
                    "checklist": [{"id": "c1", "text": "answers"}],
                }
            )
            + "\n"
            for n, question in enumerate(questions)
        )
    )
    return path


def options(**kwargs: object) -> ModelOptions:
    return ModelOptions(batch=True, batch_poll_s=0.001, **kwargs)  # type: ignore[arg-type]


def journal(run_dir: Path) -> dict[str, dict]:
    with RunStore.existing(run_dir) as store:
        return store.records(JOURNAL_KIND)


def test_a_batch_in_progress_for_some_polls_answers_every_call_at_the_batch_price(
    tmp_path: Path,
) -> None:
    questions = ["what is two plus two", "name a colour", "what is two plus two"]
    with OpenAIServer(echo_answer, batch=BatchSettings(polls_in_progress=3)) as server:
        spec = f"openai:m@{server.base_url}"
        summary = api.generate(
            bench(tmp_path / "b.jsonl", questions), [spec], tmp_path / "run", options=options()
        ).stage
    assert summary.called == 3 and summary.failed_calls == 0
    (batch,) = server.batch.batches.values()
    assert batch.status == "completed" and batch.polls == 4  # three in progress, then done
    # the identical question went out once (custom ids must be unique in a batch)
    assert sorted(line["body"]["messages"][0]["content"] for line in batch.lines) == sorted(
        set(questions)
    )
    assert all(line["body"]["model"] == "m" for line in batch.lines)
    with RunStore.existing(tmp_path / "run") as store:
        answers = {r.item_id: r.content for r in store.responses()}
        (row,) = store.usage()
    assert answers == {f"q{n}": f"answer to: {q}" for n, q in enumerate(questions)}
    words = sum(len(q.split()) for q in set(questions))  # one call recorded per request
    assert row.completion_tokens == row.batched_completion_tokens == words
    assert row.prompt_tokens == row.batched_prompt_tokens > 0
    full = Price(input=2.0, output=8.0).cost(row.prompt_tokens, row.completion_tokens)
    assert Price(input=2.0, output=8.0).billed(row) == pytest.approx(full / 2)
    assert parse_price("m=2,8,0.25")[1].billed(row) == pytest.approx(0.75 * full)
    (record,) = journal(tmp_path / "run").values()
    assert record["state"] == "completed" and record["results"] == 2


def fail_second(body: dict, headers: dict) -> Answer:
    if body["messages"][-1]["content"] == "question 1":
        return 500, {"error": {"message": "server overloaded"}}
    return echo_answer(body, headers)


def test_errors_in_the_error_file_are_failed_calls_that_a_rerun_sends_again(
    tmp_path: Path,
) -> None:
    questions = ["question 0", "question 1", "question 2"]
    path, run_dir = bench(tmp_path / "b.jsonl", questions), tmp_path / "run"
    with OpenAIServer(answer=fail_second) as server:
        spec = f"openai:m@{server.base_url}"
        first = api.generate(path, [spec], run_dir, options=options()).stage
        server.answer = echo_answer
        second = api.generate(path, [spec], run_dir, options=options()).stage
    assert (first.called, first.failed_calls, second.called, second.failed_calls) == (3, 1, 1, 0)
    assert [batch.error_file_id is not None for batch in server.batch.batches.values()] == [
        True,
        False,
    ]
    (retried,) = list(server.batch.batches.values())[1].lines
    assert retried["body"]["messages"][0]["content"] == "question 1"
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        (failed,) = db.execute("SELECT error FROM calls WHERE status = 'error'")
    with RunStore.existing(run_dir) as store:
        assert {r.item_id: r.content for r in store.responses()} == {
            f"q{n}": f"answer to: {q}" for n, q in enumerate(questions)
        }
        assert [row.errors for row in store.usage()] == [1]
    assert "HTTP 500" in failed[0] and "server overloaded" in failed[0]


def test_an_expired_batch_answers_what_it_finished_and_fails_the_rest(tmp_path: Path) -> None:
    questions = ["question 0", "question 1", "question 2"]
    with OpenAIServer(
        echo_answer, batch=BatchSettings(final_status="expired", keep_on_expiry=1)
    ) as server:
        summary = api.generate(
            bench(tmp_path / "b.jsonl", questions),
            [f"openai:m@{server.base_url}"],
            tmp_path / "run",
            options=options(),
        ).stage
    assert (summary.called, summary.failed_calls) == (3, 2)
    with RunStore.existing(tmp_path / "run") as store:
        errors = [r.error for r in store.responses() if r.error]
    assert len(errors) == 2 and all("expired with no result" in e for e in errors)


def test_the_models_file_asks_for_batches_per_model(tmp_path: Path) -> None:
    models = tmp_path / "checkbench.toml"
    models.write_text(
        '[models.cheap]\nmodel = "m"\nbase_url = "http://h/v1"\nbatch = true\n\n'
        '[models.live]\nmodel = "m"\nbase_url = "http://h/v1"\nbatch = false\n'
    )
    plain = ModelOptions(models_file=models)
    assert isinstance(open_backend("cheap", plain), BatchBackend)
    assert isinstance(
        open_backend("live", ModelOptions(models_file=models, batch=True)), OpenAIBackend
    )
    batched = open_backend("openai:m@http://h/v1", ModelOptions(batch=True))
    assert batched.identity == open_backend("openai:m@http://h/v1").identity  # one cache


def test_a_refused_key_fails_every_call_and_says_so_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key-0000000000")
    with OpenAIServer(echo_answer, api_key=KEY) as server:
        summary = api.generate(
            bench(tmp_path / "b.jsonl", ["question 0", "question 1"]),
            [f"openai:m@{server.base_url}"],
            tmp_path / "run",
            options=options(),
        ).stage
    assert summary.all_failed and summary.failed_calls == 2
    with RunStore.existing(tmp_path / "run") as store:
        errors = [r.error or "" for r in store.responses()]
    assert all("batch not submitted: POST /files: HTTP 401" in e for e in errors)
    assert not any("sk-wrong-key" in e for e in errors)


def test_generate_judge_and_run_with_batch_keep_the_key_out(tmp_path: Path) -> None:
    path = bench(tmp_path / "b.jsonl", ["question 0", "question 1"])
    env = {**ENV, "BATCH_KEY": KEY}
    with OpenAIServer(echo_answer, api_key=KEY) as server:
        spec = ["-m", f"openai:m@{server.base_url}", "--api-key-env", "BATCH_KEY", *POLL]
        judge = ["-j", f"openai:j@{server.base_url}"]
        price = ["--price", f"openai:j@{server.base_url}=2,8"]
        outputs = [
            run_cli("generate", str(path), "-o", "run", *spec, env=env, cwd=tmp_path),
            run_cli("judge", "run", *judge, *spec[2:], *price, env=env, cwd=tmp_path),
            run_cli("run", str(path), "-o", "all", *spec, *judge, env=env, cwd=tmp_path),
        ]
    for result in outputs:
        assert result.returncode == 0, result.stderr
        assert KEY not in result.stdout + result.stderr
    kinds = [
        ("response_format" in b.lines[0]["body"], len(b.lines))
        for b in server.batch.batches.values()
    ]
    assert kinds == [(False, 2), (True, 2), (False, 2), (True, 2)]
    with RunStore.existing(tmp_path / "run") as store:
        (judged,) = [row for row in store.usage() if row.role == "judge"]
    assert judged.batched_prompt_tokens == judged.prompt_tokens > 0
    cost = usd(Price(input=2.0, output=8.0).billed(judged))  # at the batch price
    assert cost in outputs[1].stdout.split() and "cost" not in outputs[0].stdout
    for run_dir in ("run", "all"):
        with RunStore.existing(tmp_path / run_dir) as store:
            verdicts = store.verdicts()
            assert len(verdicts) == 2 and all(v.passed for v in verdicts)
        with sqlite3.connect(tmp_path / run_dir / "run.sqlite") as db:
            assert KEY not in "\n".join(db.iterdump())
    assert all(h.get("Authorization") == f"Bearer {KEY}" for h in server.headers)


def test_a_killed_run_picks_up_its_batch_instead_of_submitting_again(tmp_path: Path) -> None:
    path = bench(tmp_path / "b.jsonl", [f"question {n}" for n in range(4)])
    with OpenAIServer(echo_answer, batch=BatchSettings(held=True)) as server:
        spec = f"openai:m@{server.base_url}"
        args = ["generate", str(path), "-o", "killed", "-m", spec, *POLL]
        proc = subprocess.Popen(
            [sys.executable, "-m", "checkbench", *args],
            cwd=tmp_path,
            env={**os.environ, **ENV},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60  # the journal is written before the first poll
        while (
            not any(b.polls for b in server.batch.batches.values()) and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        (submitted,) = journal(tmp_path / "killed").values()
        assert submitted["state"] == "submitted" and len(submitted["requests"]) == 4
        server.batch.settings.held = False
        rerun = run_cli(*args, env=ENV, cwd=tmp_path)
        uploads = len(server.batch.files)
        api.generate(path, [spec], tmp_path / "whole", options=options())
    assert rerun.returncode == 0, rerun.stderr
    assert list(server.batch.batches) == ["batch_0", "batch_1"]  # the rerun submitted nothing
    assert uploads == 2  # the killed run's input file and the batch's output file
    (record,) = journal(tmp_path / "killed").values()
    assert (record["state"], record["results"]) == ("completed", 4) and "requests" not in record
    answers = []
    for run_dir in ("killed", "whole"):
        with RunStore.existing(tmp_path / run_dir) as store:
            answers.append({r.item_id: (r.content, r.error) for r in store.responses()})
    assert (
        answers[0] == answers[1] == {f"q{n}": (f"answer to: question {n}", None) for n in range(4)}
    )


def test_a_batch_answer_that_is_not_a_completion_is_a_failed_call(tmp_path: Path) -> None:
    def broken(body: dict, _headers: dict) -> Answer:
        return 200, {"choices": []} if "1" in body["messages"][0]["content"] else completion()

    with OpenAIServer(answer=broken) as server:
        summary = api.generate(
            bench(tmp_path / "b.jsonl", ["question 0", "question 1"]),
            [f"openai:m@{server.base_url}"],
            tmp_path / "run",
            options=options(),
        ).stage
    assert (summary.called, summary.failed_calls) == (2, 1)


def test_a_pool_as_wide_as_a_batch_backend_starts_one_worker_per_job() -> None:
    """Every call of a stage queues at once, without a million idle workers."""
    tasks: list[int] = []

    async def handle(_job: int) -> None:
        tasks.append(len(asyncio.all_tasks()))
        await asyncio.sleep(0)

    asyncio.run(run_pool(range(3), QUEUE_LIMIT, handle))
    assert len(tasks) == 3 and max(tasks) <= 4  # the main task and one worker per job
