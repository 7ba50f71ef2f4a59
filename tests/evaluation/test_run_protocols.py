"""`checkbench run` scores each benchmark by its protocol and says which it used."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def _native_bench(path: Path) -> Path:
    items = [
        {
            "id": f"q{i}",
            "messages": [{"role": "user", "content": f"Name {i + 2} colours, one per line."}],
            "checklist": [
                {"id": "c1", "text": f"Names exactly {i + 2} colours."},
                {"id": "c2", "text": "Puts one colour on each line."},
            ],
            "rule": "mean",
        }
        for i in range(2)
    ]
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_a_benchmark_without_fbbench_tags_is_scored_by_conv_to_bench(tmp_path: Path) -> None:
    bench = _native_bench(tmp_path / "bench.jsonl")
    run_dir = tmp_path / "run"
    args = ("run", str(bench), "--model", "local", "--judge", "local", "--max-tokens", "16")
    result = run_cli(*args, "--out", str(run_dir))
    assert result.returncode == 0, result.stderr
    assert "Scored by the Conv-to-Bench protocol" in result.stdout
    assert "Scores over 2 instructions" in result.stdout
    scores = json.loads(run_cli("convbench", "score", str(run_dir), "--json").stdout)
    assert [model["n"] for model in scores["models"]] == [2]
    forced = run_cli(*args, "--out", str(run_dir), "--protocol", "fb-bench")
    assert forced.returncode == 2
    assert "FB-Bench leaderboard needs one scenario" in forced.stderr
    assert "Traceback" not in forced.stderr
