"""`--samples K`: K answers per item, each its own cached call, judged one by one and scored by
their mean; v3 stores migrate in place; deterministic requests are refused."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

from checkbench import api
from checkbench.benchmarks import iter_items
from checkbench.errors import InputError
from checkbench.report.assemble import build_report
from checkbench.schema import Response
from checkbench.store import RunStore
from checkbench.store.layout import SCHEMA_VERSION
from checkbench.store.queries import RESPONSE_BODY, VERDICT_BODY
from checkbench.testing import OpenAIServer, completion, verdicts
from tests.conftest import run_cli

SAMPLED = api.GenerationSettings(temperature=1.0, max_tokens=12)


def _bench(path: Path, n: int, *, tags: bool = False) -> Path:
    """n items with two checks; with `tags`, FB-Bench scenario and task tags (EC/RM, 2 tasks)."""
    with path.open("w") as out:
        for i in range(n):
            record: dict[str, Any] = {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"Name a colour, number {i}."}],
                "checklist": [
                    {"id": "c1", "text": "names a colour"},
                    {"id": "c2", "text": "short"},
                ],
            }
            if tags:
                record["tags"] = {"scenario": ["EC" if i % 2 else "RM"], "task": [f"t{i % 3}"]}
            out.write(json.dumps(record) + "\n")
    return path


def _rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(query).fetchall()


def _answered(db: Path) -> int:
    """Responses stored so far (0 before the store has its tables)."""
    try:
        return _rows(db, "SELECT COUNT(*) FROM responses")[0][0] if db.exists() else 0
    except sqlite3.OperationalError:
        return 0


def _answers(run: Path) -> dict[tuple[str, int], str | None]:
    with RunStore.existing(run) as store:
        return {(r.item_id, r.sample): r.content for r in store.responses()}


def test_k_samples_are_k_distinct_calls_and_a_rerun_makes_none(tmp_path: Path) -> None:
    bench, run = _bench(tmp_path / "b.jsonl", 2), tmp_path / "run"
    once = api.generate(bench, ["local"], run, settings=SAMPLED).stage
    assert once.called == 2
    thrice = replace(SAMPLED, samples=3)
    more = api.generate(bench, ["local"], run, settings=thrice).stage
    # sample 0 is the answer of the run without samples: same cache key, not asked again
    assert (more.total, more.already_done, more.called, more.cached) == (6, 2, 4, 0)
    again = api.generate(bench, ["local"], run, settings=thrice).stage
    assert (again.already_done, again.called, again.cached) == (6, 0, 0)

    answers = _answers(run)
    assert sorted(answers) == [(f"q{i}", k) for i in range(2) for k in range(3)]
    for i in range(2):
        texts = [answers[f"q{i}", k] for k in range(3)]
        assert all(texts) and len(set(texts)) == 3, texts
    sample = "coalesce(json_extract(request, '$.sample'), 0)"  # left out when 0
    calls = _rows(run / "run.sqlite", f"SELECT {sample} FROM calls")
    assert sorted(sample for (sample,) in calls) == [0, 0, 1, 1, 2, 2]


def _generate_cmd(bench: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "checkbench", "generate", str(bench), "--out", str(out),
            "--samples", "3", "--temperature", "1.0", "--max-tokens", "12"]  # fmt: skip


def test_killed_sampled_run_resumes_to_the_uninterrupted_answers(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "b.jsonl", 4)
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    api.generate(bench, ["local"], whole, settings=replace(SAMPLED, samples=3))
    db = resumed / "run.sqlite"
    proc = subprocess.Popen(_generate_cmd(bench, resumed), stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _answered(db) < 4:
        assert proc.poll() is None, "the run finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = _rows(db, "SELECT COUNT(*) FROM responses WHERE ok")[0][0]
    assert 4 <= done_before < 12
    rerun = subprocess.run(_generate_cmd(bench, resumed), capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{done_before} already done" in rerun.stdout.replace("\n", " ")
    assert _answers(resumed) == _answers(whole)
    assert len(_answers(whole)) == 12


def _judged_by_content(body: dict[str, Any], _headers: dict[str, str]) -> tuple[int, Any]:
    """Candidates: a new answer per call. Judge: c1 met always, c2 when the answer's number is
    even; the answer numbered 5 gets an unusable judgment (an unscored sample)."""
    if "response_format" not in body:
        _judged_by_content.calls += 1  # type: ignore[attr-defined]
        return 200, completion(f"answer {_judged_by_content.calls}")  # type: ignore[attr-defined]
    prompt = " ".join(message["content"] for message in body["messages"])
    (number,) = {int(found) for found in re.findall(r"\banswer (\d+)\b", prompt)}
    if number == 5:
        return 200, completion("not json")
    answer = json.loads(verdicts(body))
    answer["c2"]["verdict"] = "yes" if number % 2 == 0 else "no"
    return 200, completion(json.dumps(answer))


def _item_means(db: Path) -> dict[str, float | None]:
    """Each item's score computed here from the stored verdicts: per sample the mean of its
    checks (None when one is unscored), then the mean over samples (None when one is)."""
    by_sample: dict[tuple[str, int], list[int | None]] = defaultdict(list)
    for item_id, sample, passed in _rows(db, "SELECT item_id, sample, passed FROM verdicts"):
        by_sample[item_id, sample].append(passed)
    samples: dict[str, list[float | None]] = defaultdict(list)
    for (item_id, _), passed in sorted(by_sample.items()):
        samples[item_id].append(None if None in passed else sum(passed) / len(passed))  # type: ignore[arg-type]
    return {
        item_id: None if None in scores else sum(scores) / len(scores)  # type: ignore[arg-type]
        for item_id, scores in samples.items()
    }


def _percent(x: float) -> float:
    return round(round(x, 4) * 100, 2)


def test_scores_are_means_over_samples_of_the_stored_verdicts(tmp_path: Path) -> None:
    bench, run = _bench(tmp_path / "b.jsonl", 6, tags=True), tmp_path / "run"
    _judged_by_content.calls = 0  # type: ignore[attr-defined]
    with OpenAIServer(_judged_by_content) as server:
        result = api.run(
            bench,
            [f"openai:c@{server.base_url}"],
            f"openai:j@{server.base_url}",
            run,
            settings=api.GenerationSettings(temperature=0.7, samples=3),
        )
    reasks = api.JudgeSettings().reasks  # of the one unusable judgment
    assert [(s.stage, s.called) for s in result.stages] == [
        ("generate", 18),
        ("judge", 18 + reasks),
    ]
    board = result.scores
    assert len(_rows(run / "run.sqlite", "SELECT 1 FROM verdicts")) == 6 * 3 * 2
    items = _item_means(run / "run.sqlite")
    assert len(items) == 6 and sum(score is None for score in items.values()) == 1

    # FB-Bench: macro mean over (scenario, task) groups, the unscored item counted as 0
    assert isinstance(board, api.FBBenchLeaderboard)
    (row,) = board.rows
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for i in range(6):
        groups["EC" if i % 2 else "RM", f"t{i % 3}"].append(items[f"q{i}"] or 0.0)
    assert row.overall == _percent(mean(mean(g) for g in groups.values()))
    assert (row.n, row.unscored, row.samples) == (6, 1, 3)
    assert '"samples":3' in board.model_dump_json()

    # the generic score: mean over scored items (policy exclude)
    scores = api.score(run).scores
    (model,) = scores.models
    assert model.score == _percent(mean(s for s in items.values() if s is not None))
    assert (model.n, model.unscored, model.samples) == (5, 1, 3)

    # the report's Items tab: each sample's response with its own verdicts
    with RunStore.existing(run) as store:
        (record,) = build_report(store).details.records([0])["records"]
    assert [(response[7], len(response[6])) for response in record[4]] == [(0, 2), (1, 2), (2, 2)]


_V3 = f"""
CREATE TABLE responses_v3 (
    item_id TEXT NOT NULL, model TEXT NOT NULL, body TEXT NOT NULL, ok INTEGER NOT NULL,
    has_meta INTEGER NOT NULL, PRIMARY KEY (item_id, model));
INSERT INTO responses_v3 SELECT item_id, model, {RESPONSE_BODY}, ok, has_meta FROM responses r;
DROP TABLE responses;
ALTER TABLE responses_v3 RENAME TO responses;
CREATE TABLE verdicts_v3 (
    item_id TEXT NOT NULL, model TEXT NOT NULL, judge TEXT NOT NULL, check_id TEXT NOT NULL,
    passed INTEGER, body TEXT NOT NULL, PRIMARY KEY (item_id, model, judge, check_id));
INSERT INTO verdicts_v3 SELECT item_id, model, judge, check_id, passed, {VERDICT_BODY}
    FROM verdicts v;
DROP TABLE verdicts;
ALTER TABLE verdicts_v3 RENAME TO verdicts;
CREATE INDEX verdicts_by_judge ON verdicts(judge, item_id, model, check_id, passed);
UPDATE meta SET value = '3' WHERE key = 'schema_version';
"""
"""A store of one sample per item rewritten in the v3 layout (no sample columns, whole bodies)."""


def test_a_v3_store_migrates_in_place_and_resumes_with_more_samples(tmp_path: Path) -> None:
    bench, run = _bench(tmp_path / "b.jsonl", 3), tmp_path / "run"
    db = run / "run.sqlite"
    with OpenAIServer() as server:
        candidate, judge = f"openai:c@{server.base_url}", f"openai:j@{server.base_url}"
        settings = api.GenerationSettings(temperature=0.7)
        api.generate(bench, [candidate], run, settings=settings)
        api.judge(run, judge)
        with sqlite3.connect(db) as conn:
            conn.executescript(_V3)
        old = _rows(db, "SELECT item_id, model, body FROM responses ORDER BY rowid")
        old_verdicts = _rows(db, "SELECT item_id, check_id, passed, body FROM verdicts")
        before = api.score(run).scores  # a reader: migrates the store
        asked = len(server.requests)
        more = api.generate(bench, [candidate], run, settings=replace(settings, samples=2)).stage
        assert (more.already_done, more.called) == (3, 3)
        again = api.judge(run, judge)
        # the canned answers are alike: judging them again is served from the cache
        assert (again.stage.total, again.stage.already_done, again.stage.cached) == (6, 3, 3)
        assert len(server.requests) - asked == 3
    assert _rows(db, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION),)
    ]
    kept = "SELECT item_id, model, body FROM responses WHERE sample = 0 ORDER BY rowid"
    assert _rows(db, kept) == old
    kept_verdicts = "SELECT item_id, check_id, passed, body FROM verdicts WHERE sample = 0"
    assert sorted(_rows(db, kept_verdicts)) == sorted(old_verdicts)
    (model,) = api.score(run).scores.models
    assert (before.models[0].score, model.score, model.samples) == (100.0, 100.0, 2)


def test_deterministic_requests_with_several_samples_are_refused(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "b.jsonl", 2)
    greedy = run_cli("generate", str(bench), "-o", "run", "--samples", "2", cwd=tmp_path)
    assert greedy.returncode == 2
    assert greedy.stderr.strip().count("\n") == 0
    assert "--samples 2" in greedy.stderr and "temperature 0" in greedy.stderr
    assert not (tmp_path / "run").exists()
    with pytest.raises(InputError, match="item 'q0' deterministically \\(seed 3\\)"):
        api.generate(bench, ["local"], tmp_path / "seeded",
                     settings=replace(SAMPLED, samples=2, seed=3))  # fmt: skip
    assert not (tmp_path / "seeded").exists()
    piped = run_cli("run", str(bench), "-o", "run", "--samples", "3", cwd=tmp_path)
    assert piped.returncode == 2 and "--samples 3" in piped.stderr


def test_unanswered_pairs_are_walked_in_batches_while_answers_are_written(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        store.add_items(iter_items(_bench(tmp_path / "b.jsonl", 4), "auto"))
        store.put_response(Response(item_id="q1", model="m", sample=1, content="done"))
        store.put_response(Response(item_id="q2", model="m", sample=0, error="failed"))
        walked = []
        for item, sample in store.unanswered("m", samples=3, batch=2):
            walked.append((item.id, sample))
            store.put_response(Response(item_id=item.id, model="m", sample=sample, content="x"))
        pairs = [(f"q{i}", k) for i in range(4) for k in range(3)]
        assert walked == [pair for pair in pairs if pair != ("q1", 1)]
        assert list(store.unanswered("m", samples=3)) == []
        assert (store.count_answered("m"), store.count_answered("m", samples=3)) == (4, 12)
        more = [(item.id, sample) for item, sample in store.unanswered("m", samples=4)]
        assert more == [(f"q{i}", 3) for i in range(4)]
