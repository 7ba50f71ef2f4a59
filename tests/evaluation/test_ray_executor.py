"""The Ray executor: generation and judging as Ray Data pipelines on a real local Ray instance
store exactly what the local executor stores, skip what a run holds already, and are reached
from the CLI by --executor ray --ray-address; without ray installed, one line says what to
install."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkbench import api
from checkbench.steps.caller import LIMITS_META
from checkbench.testing import OpenAIServer, deterministic
from tests.conftest import EXAMPLE, ROOT, run_cli
from tests.support.run_contents import stored

pytest.importorskip("ray")

# small batches and pipelines, so that 48 jobs make several of each
EXECUTOR = api.RayExecutor(workers=2, batch_size=4, chunk=30)


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(answer=deterministic) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's items three times over, each copy asked a little differently (24 items)."""
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]
    path = tmp_path_factory.mktemp("bench") / "bench.jsonl"
    with path.open("w") as out:
        for copy in range(3):
            for row in rows:
                last = {**row["messages"][-1]}
                last["content"] += " " * copy
                messages = [*row["messages"][:-1], last]
                out.write(json.dumps({**row, "id": f"{row['id']}-{copy}", "messages": messages}))
                out.write("\n")
    return path


def _run(
    bench: Path, server: OpenAIServer, out: Path, executor: api.Executor
) -> list[api.StageSummary]:
    candidates = [f"openai:cand-{name}@{server.base_url}" for name in ("a", "b")]
    result = api.run(
        bench,
        candidates,
        f"openai:judge@{server.base_url}",
        out,
        executor=executor,
        scoring=api.ScoringSettings(protocol="conv-to-bench"),
    )
    return result.stages


def test_ray_stores_what_the_local_executor_stores(
    ray_cluster: str, server: OpenAIServer, bench: Path, tmp_path: Path
) -> None:
    local = _run(bench, server, tmp_path / "local", "local")
    on_ray = _run(bench, server, tmp_path / "ray", EXECUTOR)
    expected = stored(tmp_path / "local")
    assert len(expected["responses"]) == 48 and len(expected["calls"]) > 96
    assert {v[4] for v in expected["verdicts"]} == {True, False, None}  # each outcome is seen
    assert stored(tmp_path / "ray") == expected
    for ours, theirs in zip(on_ray, local, strict=True):
        assert (ours.stage, ours.total, ours.called, ours.errors, ours.unscored) == (
            theirs.stage,
            theirs.total,
            theirs.called,
            theirs.errors,
            theirs.unscored,
        )
    assert api.score(tmp_path / "ray").scores == api.score(tmp_path / "local").scores
    # the calls table's limit column: each model's limit, added up over the Ray workers
    local_limits, ray_limits = (_limits(tmp_path / name) for name in ("local", "ray"))
    assert set(ray_limits) == set(local_limits) and len(local_limits) == 3  # 2 candidates, judge
    assert all(ray_limits[m] % local_limits[m] == 0 < ray_limits[m] for m in local_limits)


def _limits(run: Path) -> dict[str, int]:
    with api.RunStore.existing(run) as store:
        return store.get_meta(LIMITS_META, {})


def test_ray_dispatches_only_what_the_run_lacks(
    ray_cluster: str, server: OpenAIServer, bench: Path, tmp_path: Path
) -> None:
    lines = bench.read_text().splitlines(keepends=True)
    repeat = json.dumps({**json.loads(lines[0]), "id": "asked-again"}) + "\n"
    first, full = tmp_path / "first.jsonl", tmp_path / "full.jsonl"
    first.write_text("".join(lines[:10]))
    full.write_text("".join(lines) + repeat)  # one item asks what the first one asked
    spec = f"openai:cand-a@{server.base_url}"
    api.generate(first, [spec], tmp_path / "run")  # locally, the first ten items
    before = len(server.requests)
    summary = api.generate(full, [spec], tmp_path / "run", executor=EXECUTOR).stage
    new = len(lines) - 10
    assert (summary.already_done, summary.called, summary.cached) == (10, new, 1)
    assert len(server.requests) - before == new
    again = api.generate(full, [spec], tmp_path / "run", executor=EXECUTOR).stage
    assert (again.already_done, again.called) == (len(lines) + 1, 0)
    api.generate(full, [spec], tmp_path / "local")
    assert stored(tmp_path / "run") == stored(tmp_path / "local")


def test_samples_are_answered_on_ray_as_locally(
    ray_cluster: str, server: OpenAIServer, bench: Path, tmp_path: Path
) -> None:
    settings = api.GenerationSettings(samples=2, temperature=0.7)
    spec = f"openai:cand-a@{server.base_url}"
    for name, executor in (("local", "local"), ("ray", EXECUTOR)):
        api.generate(bench, [spec], tmp_path / name, settings=settings, executor=executor)
    expected = stored(tmp_path / "local")
    assert sorted({r.get("sample", 0) for r in expected["responses"]}) == [0, 1]
    assert len(expected["responses"]) == len(expected["calls"]) == 48
    assert stored(tmp_path / "ray") == expected


def _alias_file(directory: Path, server: OpenAIServer) -> None:
    """./checkbench.toml naming the candidate `cand` on the server, for the CLI's commands."""
    models = f'[models.cand]\nmodel = "cand-a"\nbase_url = "{server.base_url}"\n'
    (directory / "checkbench.toml").write_text(models)


def test_cli_joins_the_cluster_named_by_ray_address(
    ray_cluster: str, server: OpenAIServer, bench: Path, tmp_path: Path
) -> None:
    # the alias lives in ./checkbench.toml of the command's directory, which workers lack
    _alias_file(tmp_path, server)
    args = ["generate", str(bench), "--model", "cand", "--out"]
    result = run_cli(*args, "ray", "--executor", "ray", "--ray-address", ray_cluster, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    local = run_cli(*args, "local", cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert stored(tmp_path / "ray") == stored(tmp_path / "local")
    assert len(stored(tmp_path / "ray")["responses"]) == 24


def test_an_address_where_nothing_answers_is_one_line_at_once(
    server: OpenAIServer, bench: Path, tmp_path: Path
) -> None:
    # Ray itself would retry such an address for minutes, logging as it goes
    _alias_file(tmp_path, server)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    address = f"127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    args = ["generate", str(bench), "--model", "cand", "--out", "run", "--executor", "ray"]
    result = run_cli(*args, "--ray-address", address, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"error: cannot start or join Ray at {address}: nothing answers there (Connection refused)"
    )
    assert "Traceback" not in result.stderr


def test_ray_executor_without_ray_names_the_extra(tmp_path: Path) -> None:
    blocked = "import sys; sys.modules['ray'] = None; from checkbench.cli import main; main()"
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-c", blocked, "generate", str(EXAMPLE), "--out", str(out)]
        + ["--executor", "ray"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == "error: the ray executor needs ray: pip install 'checkbench[ray]'\n"
    assert not out.exists()
