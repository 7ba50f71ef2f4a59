"""`checkbench convbench build` on a real local Ray instance: records parsed, first messages
embedded and the model stages decided on Ray workers give the local executor's benchmark,
records, calls and report; a rerun (of a Ray or a local run) asks the model nothing, a run
missing some answers asks only for those; the CLI joins a cluster named by --ray-address."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checkbench import api
from checkbench.convbench.summary import REPORT_FILE, BuildSummary
from checkbench.convbench.topic_report import TopicConfig
from checkbench.llm import ModelOptions
from checkbench.store import STORE_FILE
from checkbench.testing import OpenAIServer, Reply
from tests.conftest import run_cli
from tests.convbench.build_helpers import LOGS, Request, routed
from tests.convbench.test_stages import conv_route

pytest.importorskip("ray")

# two records per batch (parsing: two batches for a log), chunks of four first messages
# (embedding: four chunks), two candidates per batch and eight per pipeline (model stages: the
# domain check takes two pipelines)
EXECUTOR = api.RayExecutor(workers=2, batch_size=2, chunk=8)


def route(request: Request) -> str | Reply:
    """conv_route, except that the quality check of lm-rust is answered badly the first time
    (so that it takes a re-ask: two calls for one decision)."""
    if request.stage == "quality" and request.about == "lm-rust" and not request.reask:
        return "not json"
    return conv_route(request)


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with routed(route) as stub:
        yield stub


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The four format logs, and one with a malformed line, a chat without turns and a
    repeated id (rejections the driver must count in order)."""
    good = LOGS[0].read_text().splitlines()[2]  # oa-regex
    other = good.replace("oa-regex", "mx-regex").replace("matches email", "matches an email")
    mixed = tmp_path_factory.mktemp("logs") / "mixed.jsonl"
    mixed.write_text("\n".join([other, "{not json", '{"messages": []}', good]) + "\n")
    return [*LOGS, mixed]


def spec(logs: list[Path], root: Path) -> api.BuildSpec:
    """Topics chosen among k = 2..4 over chunks of four messages with the default embedder,
    and a vocabulary that keeps the coding clusters only."""
    vocab = root / "vocab.txt"
    vocab.write_text("python\nsql\nbash\nrust\nregex\ncode\nfunction\nscript\npandas\nlist\n")
    return api.BuildSpec(
        logs=logs,
        domain="coding",
        vocab=vocab,
        model="openai:builder",
        topics={"k_max": 4, "chunk_size": 4, "sample_size": 10},
    )


def build(
    server: OpenAIServer, spec: api.BuildSpec, run: Path, executor: api.Executor
) -> BuildSummary:
    options = ModelOptions(base_url=server.base_url)
    return api.build(spec, run, run / "bench.jsonl", options=options, executor=executor).report


def _own(report: dict[str, Any]) -> dict[str, Any]:
    """A build report without its times and the path of its bench."""
    report.pop("bench")
    report["topics"].pop("timings")
    for usage in report["usage"]:
        usage.pop("latency_s")
    return report


def outcome(run: Path) -> dict[str, Any]:
    """Everything a build leaves, times and its own paths aside: the bench, the report,
    records, calls and the build's meta."""
    db = sqlite3.connect(run / STORE_FILE)
    try:
        records = db.execute("SELECT kind, key, body FROM records ORDER BY kind, key").fetchall()
        calls = db.execute(
            "SELECT key, model, role, status, request, result FROM calls ORDER BY key"
        ).fetchall()
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'build_%'"))
    finally:
        db.close()
    meta = {key: json.loads(value) for key, value in meta.items()}
    _own(meta["build_report"])
    meta["build_topics"].pop("timings")
    return {
        "bench": (run / "bench.jsonl").read_text(),
        "report": _own(json.loads((run / REPORT_FILE).read_text())),
        "records": records,
        "calls": calls,
        "meta": meta,
    }


@pytest.fixture(scope="module")
def local_run(
    server: OpenAIServer, logs: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    root = tmp_path_factory.mktemp("local")
    build(server, spec(logs, root), root / "run", "local")
    return root / "run"


def test_a_ray_build_leaves_what_the_local_build_leaves(
    ray_cluster: str, server: OpenAIServer, logs: list[Path], local_run: Path, tmp_path: Path
) -> None:
    expected = outcome(local_run)
    report = expected["report"]
    stages = {s["stage"]: s for s in report["stages"]}
    assert stages["read"]["reasons"] == {
        "duplicate conversation id": 1,
        "empty conversation": 1,
        "malformed JSON": 1,
    }
    assert report["topics"]["k"] >= 2 and 0 < stages["topics"]["kept"] < stages["topics"]["seen"]
    assert report["items"] >= 3 and stages["checklist"]["calls"] > 0

    heard = len(server.requests)
    on_ray = build(server, spec(logs, tmp_path), tmp_path / "run", EXECUTOR)
    assert len(server.requests) - heard == len(expected["calls"])
    assert outcome(tmp_path / "run") == expected
    assert on_ray.items == report["items"]

    # a rerun on Ray decides everything from the store, on the driver: no call
    heard = len(server.requests)
    again = build(server, spec(logs, tmp_path), tmp_path / "run", EXECUTOR)
    assert len(server.requests) == heard
    assert all(stage.calls == 0 for stage in again.stages)
    assert [s.model_dump() for s in again.stages] == [
        {**s.model_dump(), "calls": 0, "cached": s.cached + s.calls} for s in on_ray.stages
    ]


def test_a_run_missing_some_answers_asks_ray_workers_only_for_those(
    ray_cluster: str, server: OpenAIServer, logs: list[Path], local_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(local_run, run)
    db = sqlite3.connect(run / STORE_FILE)
    try:
        # the re-ask of a quality check (its first answer stays stored) and one checklist
        lost = db.execute(
            "SELECT id FROM calls WHERE role = 'build:quality' AND request LIKE '%could not be%'"
        ).fetchall()
        lost += db.execute(
            "SELECT id FROM calls WHERE role = 'build:checklist' ORDER BY id LIMIT 1"
        ).fetchall()
        assert len(lost) == 2
        db.executemany("DELETE FROM calls WHERE id = ?", lost)
        db.commit()
    finally:
        db.close()
    heard = len(server.requests)
    report = build(server, spec(logs, run.parent), run, EXECUTOR)
    assert len(server.requests) - heard == 2
    counts = {s.stage: (s.calls, s.cached) for s in report.stages}
    local = {s["stage"]: s["calls"] + s["cached"] for s in outcome(local_run)["report"]["stages"]}
    assert counts["quality"][0] == counts["checklist"][0] == 1
    assert all(sum(counts[stage]) == local[stage] for stage in counts)
    mine, expected = outcome(run), outcome(local_run)
    assert mine["bench"] == expected["bench"] and mine["records"] == expected["records"]


def test_cli_builds_on_the_cluster_named_by_ray_address(
    ray_cluster: str, server: OpenAIServer, logs: list[Path], tmp_path: Path
) -> None:
    model = f"openai:builder@{server.base_url}"
    local = spec(logs, tmp_path).model_copy(update={"model": model, "topics": TopicConfig()})
    api.build(local, tmp_path / "local", tmp_path / "local" / "bench.jsonl")
    run = tmp_path / "ray"
    result = run_cli(
        "convbench",
        "build",
        *map(str, logs),
        *("--domain", "coding", "--vocab", str(tmp_path / "vocab.txt"), "--model", model),
        *("--out", str(run), "--bench", str(run / "bench.jsonl")),
        *("--executor", "ray", "--ray-address", ray_cluster),
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "items written" in result.stdout
    assert outcome(run) == outcome(tmp_path / "local")
