"""`checkbench convbench build` end to end with the embedded model: one conversation from each log
format (OpenAI messages, ShareGPT, LMSYS, WildChat) through every stage, and a rerun that makes
no model call (test_build_stages runs a built bench through generate and judge, on a scripted
server). Bad input stops the command before it writes anything."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from checkbench.benchmarks import load_items
from checkbench.convbench.decisions import DECISIONS
from checkbench.convbench.summary import REPORT_FILE, BuildSummary
from checkbench.store import STORE_FILE, RunStore
from tests.conftest import run_cli
from tests.convbench.build_helpers import LOGS, item_line

FIRST = {"oa-sort": "openai", "sg-sql": "sharegpt", "lm-bash": "lmsys", "wc-pandas": "wildchat"}
"""The first conversation of each log: what `--limit 1` reads."""
MODEL_STAGES = ["domain", "instruction", "quality", "feedback", "checklist"]
BUILD = [
    *map(str, LOGS),
    "--domain", "coding",
    "--k", "1",
    "--limit", "1",
    "--min-checks", "1",
    "--max-checks", "2",
    "--instruction-chars", "120",
    "--check-chars", "60",
]  # fmt: skip


def _build(run: Path, bench: Path) -> subprocess.CompletedProcess:
    return run_cli("convbench", "build", *BUILD, "--out", str(run), "--bench", str(bench))


def _calls(run: Path) -> int:
    with sqlite3.connect(run / STORE_FILE) as db:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("build")
    result = _build(root / "run", root / "bench.jsonl")
    assert result.returncode == 0, result.stderr
    assert "checklist" in result.stdout and "items written" in result.stdout
    return root / "run", root / "bench.jsonl"


def _report(run: Path) -> BuildSummary:
    return BuildSummary.model_validate_json((run / REPORT_FILE).read_text())


@pytest.mark.slow
def test_one_conversation_of_each_format_goes_through_every_stage(built: tuple[Path, Path]) -> None:
    run, bench = built
    report = _report(run)
    assert [(log.read, log.kept) for log in report.logs] == [(1, 1)] * 4
    assert report.limit_reached
    assert [s.stage for s in report.stages] == ["read", "topics", *MODEL_STAGES]
    for stage in report.stages:
        assert stage.kept + stage.dropped == stage.seen == sum(stage.reasons.values()) + stage.kept
    for before, stage in zip(report.stages, report.stages[1:], strict=False):
        assert stage.seen == before.kept
    assert {u.role for u in report.usage} <= {f"build:{s}" for s in MODEL_STAGES}
    assert sum(u.prompt_tokens for u in report.usage) > 0

    items = load_items(bench)
    assert len(items) == report.items >= 1
    with RunStore.existing(run) as store:
        records = {stage: store.records(DECISIONS[stage]) for stage in MODEL_STAGES}
    # Each conversation is followed stage by stage until it is dropped, with a reason, or
    # becomes an item.
    assert set(records["domain"]) == set(FIRST)
    ids = {item.id for item in items}
    for conversation in FIRST:
        for stage in MODEL_STAGES:
            record = records[stage][conversation]
            if not record["kept"]:
                assert record["reason"] and conversation not in ids
                break
        else:
            assert conversation in ids
    for item in items:
        assert item.messages[-1].role == "user" and len(item.messages) == 1
        assert 1 <= len(item.checklist) <= 2 and all(c.id for c in item.checklist)
        allowed = {"instruction"} | {f"feedback:{i}" for i in item.meta["feedback"]}
        assert {check.source for check in item.checklist} <= allowed
        origin = item.meta["provenance"]
        assert origin["format"] == FIRST[item.id]
        record = item_line(Path(origin["file"]), origin["line"])
        assert item.id in json.dumps(record)
        assert item.tags["domain"] == ["coding"] and item.tags["cluster"] == ["0"]


@pytest.mark.slow
def test_a_rerun_makes_no_model_call(built: tuple[Path, Path]) -> None:
    run, bench = built
    calls, first = _calls(run), bench.read_bytes()
    again = _build(run, bench)
    assert again.returncode == 0, again.stderr
    assert _calls(run) == calls
    assert "No model calls made by this command." in again.stdout  # none of the first build's
    assert bench.read_bytes() == first
    report = _report(run)
    assert all(stage.calls == 0 for stage in report.stages)
    assert sum(stage.cached for stage in report.stages) >= report.stages[2].seen


def _malformed_log(path: Path) -> Path:
    path.write_text(
        '{"messages": [{"role": "user", "content": "Sort a list in Python"}]}\n'
        '{"messages": [{"role": "user", "content": "oops"\n'
    )
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl", "--domain", "coding"], "missing.jsonl: file not found"),
        (["{log}", "--domain", "coding", "--strict"], ":2: malformed JSON"),
        (["{log}"], "needs a domain (--domain)"),
        (["{log}", "--domain", "cooking"], "no built-in vocabulary for domain 'cooking'"),
        (["{log}", "--domain", "coding", "--curate", "both"], "--curate"),
        (["{log}", "--domain", "coding", "--format", "csv"], "--format"),
        (["{log}", "--domain", "coding", "--min-checks", "5", "--max-checks", "3"], "min_checks"),
        (["{log}", "--domain", "coding", "--model", "gpt"], "unknown model 'gpt'"),
        (["{log}", "--domain", "coding", "--markers", "{log}"], "are for --curate feedback"),
        (["{log}", "--curate", "feedback", "--markers", "{log}"], ":1: a marker line is"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    log = _malformed_log(tmp_path / "log.jsonl")
    run, bench = tmp_path / "run", tmp_path / "bench.jsonl"
    argv = [arg.replace("{log}", str(log)) for arg in args]
    result = run_cli("convbench", "build", *argv, "--out", str(run), "--bench", str(bench))
    assert result.returncode == 2
    assert message in result.stderr
    assert not run.exists() and not bench.exists()


def test_a_build_that_keeps_nothing_exits_2_with_the_stage_and_writes_no_benchmark(
    tmp_path: Path,
) -> None:
    run, bench = tmp_path / "run", tmp_path / "bench.jsonl"
    argv = [*map(str, LOGS), "--domain", "math", "--k", "1", "--limit", "1"]
    result = run_cli("convbench", "build", *argv, "--out", str(run), "--bench", str(bench))
    assert result.returncode == 2, result.stderr
    line = " ".join(result.stderr.split())
    assert line.startswith("error: the build kept no items: read kept 4 of 4; topics kept 0 of 4")
    assert "topic cluster not in domain (4)" in line and "--stop-after topics" in line
    assert "no benchmark written" in line
    assert "Traceback" not in result.stderr
    assert not bench.exists()
    assert _report(run).items == 0  # what every stage kept and dropped stays inspectable
