"""Exit codes of the commands that call models, by one rule (`exit_if_all_failed`): 1 only when
every call this invocation made failed; 0 when it finished its work, even with verdicts left
unscored (counted and listed); bad input stays 2, and so does a build whose logs yield no
item."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from checkbench.benchmarks import load_items
from checkbench.convbench.summary import REPORT_FILE, BuildSummary
from checkbench.store import RunStore
from checkbench.testing import Answer, OpenAIServer, completion, default_answer
from tests.conftest import ROOT, run_cli
from tests.convbench.build_helpers import LOGS, Request
from tests.convbench.test_stages import conv_route
from tests.llm.test_endpoints import bench

FAILED = "every attempt failed in:"
EXAMPLES = ROOT / "examples"


class Switch:
    """A judge endpoint whose behaviour the test flips: every request refused (401, not
    retried), only the requests about `refused` refused, or every request answered."""

    def __init__(self) -> None:
        self.mode = "dead"
        self.refused = "question 0"

    def __call__(self, body: dict[str, Any], headers: dict[str, str]) -> Answer:
        prompt = " ".join(str(m["content"]) for m in body["messages"])
        if self.mode == "dead" or (self.mode == "some" and self.refused in prompt):
            return 401, {"error": {"message": "invalid key"}}
        return default_answer(body, headers)


def _judge(run_dir: Path, models: Path) -> Any:
    return run_cli("judge", str(run_dir), "--judge", "jdg", "--models", str(models))


def test_judge_exits_1_only_when_every_call_it_made_failed(tmp_path: Path) -> None:
    items, run_dir, switch = bench(tmp_path / "b.jsonl", 3), tmp_path / "run", Switch()
    with OpenAIServer() as candidates, OpenAIServer(switch) as judge:
        args = ["generate", str(items), "--out", str(run_dir)]
        assert run_cli(*args, "-m", f"openai:c@{candidates.base_url}").returncode == 0
        models = tmp_path / "m.toml"
        models.write_text(f'[models.jdg]\nmodel = "j"\nbase_url = "{judge.base_url}"\n')

        dead = _judge(run_dir, models)
        assert dead.returncode == 1, dead.stdout
        assert f"{FAILED} judge" in dead.stderr and "Traceback" not in dead.stderr
        with RunStore.existing(run_dir) as store:
            assert store.verdict_counts("jdg") == (3, 3)  # recorded unscored, not dropped

        switch.mode = "some"  # the rerun re-asks all three; one is refused again
        some = _judge(run_dir, models)
        assert some.returncode == 0, some.stderr
        assert "1 left unscored" in some.stdout and "q0" in some.stdout

        switch.mode = "ok"
        asked = len(judge.requests)
        fixed = _judge(run_dir, models)
        assert fixed.returncode == 0 and len(judge.requests) == asked + 1
        with RunStore.existing(run_dir) as store:
            assert store.verdict_counts("jdg") == (3, 0)

        switch.mode = "dead"  # nothing left to ask: no call made, none failed
        done = _judge(run_dir, models)
        assert done.returncode == 0, done.stderr
        assert len(judge.requests) == asked + 1


class BuildSwitch(Switch):
    """A build's model, refusing like `Switch`; answering, it is the scripted capable model."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = "debounce a function"  # the first message of sg-debounce, a kept item

    def __call__(self, body: dict[str, Any], headers: dict[str, str]) -> Answer:
        status, refusal = super().__call__(body, headers)[:2]
        return (
            (status, refusal)
            if status == 401
            else (200, completion(str(conv_route(Request(body)))))
        )


def _from_logs(tmp_path: Path, server: OpenAIServer) -> Any:
    """A coding build of the test logs into tmp_path/run and tmp_path/b.jsonl: one topic
    cluster, every word of the logs in the vocabulary (tier 1 keeps everything), no retry."""
    words = {w.lower() for log in LOGS for w in log.read_text().replace('"', " ").split()}
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(sorted(w for w in words if w.isalpha() and len(w) > 1)))
    args = [*map(str, LOGS), "--domain", "coding", "--vocab", str(vocab), "--k", "1"]
    out = ["--out", str(tmp_path / "run"), "--bench", str(tmp_path / "b.jsonl")]
    return run_cli(
        "convbench", "build", *args, *out, "-m", f"openai:b@{server.base_url}", "--retries", "0"
    )


def _build_report(tmp_path: Path) -> BuildSummary:
    return BuildSummary.model_validate_json((tmp_path / "run" / REPORT_FILE).read_text())


def test_build_exits_1_when_every_call_failed_and_a_rerun_asks_them_again(
    tmp_path: Path,
) -> None:
    switch, items = BuildSwitch(), tmp_path / "b.jsonl"
    with OpenAIServer(switch) as server:
        dead = _from_logs(tmp_path, server)
        assert dead.returncode == 1, (dead.stdout, dead.stderr)
        errors = [line for line in dead.stderr.splitlines() if "error" in line.lower()]
        assert errors == [f"error: {FAILED} domain"]  # one line (after the progress bar)
        assert "Traceback" not in dead.stderr and "kept no items" not in dead.stderr
        assert "no benchmark written" in dead.stdout and "build:domain" in dead.stdout
        assert not items.exists()
        report = _build_report(tmp_path)
        domain = next(stage for stage in report.stages if stage.stage == "domain")
        assert (domain.seen, domain.calls, domain.failed) == (12, 12, 12)
        assert domain.reasons == {"model call failed": 12} and report.items == 0
        assert len(server.requests) == 12  # 401 is not retried

        switch.mode = "some"  # every call is asked again; sg-debounce's is refused again
        some = _from_logs(tmp_path, server)
        assert some.returncode == 0, some.stderr
        assert {item.id for item in load_items(items)} == {
            *("oa-sort", "sg-sql", "lm-bash", "lm-rust", "wc-pandas", "wc-palindrome")
        }

        switch.mode = "ok"
        asked = len(server.requests)
        fixed = _from_logs(tmp_path, server)
        assert fixed.returncode == 0, fixed.stderr
        assert "sg-debounce" in {item.id for item in load_items(items)}
        assert len(server.requests) == asked + 5  # its five stages; the rest replayed

        switch.mode = "dead"  # nothing left to ask: no call made, none failed
        done = _from_logs(tmp_path, server)
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == asked + 5


def test_a_build_whose_logs_yield_nothing_exits_2_even_with_a_dead_model(tmp_path: Path) -> None:
    run, items = tmp_path / "run", tmp_path / "b.jsonl"
    with OpenAIServer(BuildSwitch()) as server:  # dead, but never asked
        args = [
            "convbench",
            "build",
            *map(str, LOGS),
            "--domain",
            "math",
            "--k",
            "1",
            "--limit",
            "1",
        ]
        out = ["--out", str(run), "--bench", str(items), "-m", f"openai:b@{server.base_url}"]
        result = run_cli(*args, *out)
        assert not server.requests
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: the build kept no items: read kept 4 of 4")
    assert FAILED not in result.stderr and not items.exists()


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run whose responses are in (for the commands that read a run)."""
    run_dir = tmp_path_factory.mktemp("answered") / "run"
    with OpenAIServer() as server:
        args = ["generate", str(EXAMPLES / "feedback-mini.jsonl"), "--out", str(run_dir)]
        assert run_cli(*args, "-m", f"openai:c@{server.base_url}").returncode == 0
    return run_dir


COMMANDS = {
    "generate": ["generate", "{ex}/feedback-mini.jsonl", "--out", "{out}", "-m", "{dead}"],
    "judge": ["judge", "{run}", "--judge", "{dead}"],
    "run": ["run", "{ex}/feedback-mini.jsonl", "--out", "{out}", "-m", "{dead}", "-j", "{dead}"],
    "ifrewardbench run": [
        *("ifrewardbench", "run", "{ex}/ifrewardbench-mini.json"),
        "--judge",
        "{dead}",
        "--out",
        "{out}",
    ],
    "ifrewardbench run --json": [
        *("ifrewardbench", "run", "{ex}/ifrewardbench-mini.json", "--judge", "{dead}"),
        *("--out", "{out}", "--json"),
    ],
    "scan build": [
        *("scan", "build", "{ex}/queries-mini.jsonl", "--out", "{out}"),
        *("--taxonomy-out", "{out}.json", "--model", "{dead}"),
    ],
    "scan tag": [
        *("scan", "tag", "{ex}/feedback-mini.jsonl", "--taxonomy", "{ex}/taxonomy-mini.json"),
        *("--out", "{out}", "--bench-out", "{out}.jsonl", "--model", "{dead}"),
    ],
    "scan pc2": ["scan", "pc2", "{run}", "--judge", "{dead}", "--aux", "{dead}"],
    "convbench build": [
        *("convbench", "build", "{ex}/logs-mini.jsonl", "--domain", "coding", "--out", "{out}"),
        *("--bench", "{out}.jsonl", "--model", "{dead}"),
    ],
    "fbbench filter": [
        *("fbbench", "filter", "{ex}/feedback-mini.jsonl", "--weak-model", "{dead}"),
        *("--judge", "{dead}", "--out", "{out}.jsonl"),
    ],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_calls_models_exits_1_when_all_its_calls_fail(
    command: str, answered: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(answered, run_dir)
    with OpenAIServer(lambda body, headers: (401, {"error": {"message": "no"}})) as dead:
        fields = {"ex": EXAMPLES, "out": tmp_path / "out", "run": run_dir}
        args = [arg.format(dead=f"openai:x@{dead.base_url}", **fields) for arg in COMMANDS[command]]
        result = run_cli(*args)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert FAILED in result.stderr and "Traceback" not in result.stderr
