"""`run` judges each answer as soon as it is stored (the judge's calls overlap the candidates'),
and stores exactly what generating, then judging, stores: on a fresh run, on a resumed one, and
after a kill. One model answering and judging goes stage after stage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest import MonkeyPatch
from typer.testing import CliRunner

from checkbench import api
from checkbench.store import RunStore
from checkbench.testing import Answer, OpenAIServer, default_answer, deterministic
from tests.conftest import EXAMPLE
from tests.support.run_contents import count_rows, kill_once, stored

CB = api.ScoringSettings(protocol="conv-to-bench")
"""These runs are scored by Conv-to-Bench's check means (auto would pick FB-Bench)."""


def _is_judge(body: dict[str, Any]) -> bool:
    return "response_format" in body


def _specs(server: OpenAIServer) -> tuple[list[str], str]:
    candidates = [f"openai:cand-{name}@{server.base_url}" for name in ("a", "b")]
    return candidates, f"openai:judge@{server.base_url}"


def _summary(summary: api.StageSummary) -> tuple[Any, ...]:
    return (
        summary.stage,
        summary.total,
        summary.already_done,
        summary.called,
        summary.cached,
        summary.errors,
        summary.unscored,
    )


def _slow_candidates(body: dict[str, Any], headers: dict[str, str]) -> Answer:
    """Candidates take a moment, judges answer at once: judging as answers come shows."""
    status, payload = deterministic(body, headers)
    return (status, payload) if _is_judge(body) else (status, payload, 0.02)


def test_each_answer_is_judged_as_it_comes_and_the_run_holds_what_stages_store(
    tmp_path: Path,
) -> None:
    with OpenAIServer(answer=_slow_candidates) as server:
        candidates, judge = _specs(server)
        options = api.ModelOptions(concurrency=2)
        run = api.run(EXAMPLE, candidates, judge, tmp_path / "run", options=options, scoring=CB)
        order = [_is_judge(body) for body in server.requests]
        staged = [api.generate(EXAMPLE, candidates, tmp_path / "staged", options=options).stage]
        staged.append(api.judge(tmp_path / "staged", judge, options=options).stage)
    # a judge was asked long before the candidates were done
    assert order.index(True) < len(order) // 4 and order[-1] is True
    assert order[order.index(True) :].count(False) > 4
    expected = stored(tmp_path / "staged")
    assert len(expected["responses"]) == 16
    assert {v[4] for v in expected["verdicts"]} == {True, False, None}  # each outcome is seen
    assert stored(tmp_path / "run") == expected
    assert [_summary(s) for s in run.stages] == [_summary(s) for s in staged]


def test_a_resumed_run_judges_the_answers_it_holds_and_replaces_failed_ones_first(
    tmp_path: Path,
) -> None:
    rows = [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]
    failing = {row["messages"][-1]["content"] for row in rows[:3]}

    def answer(body: dict[str, Any], headers: dict[str, str]) -> Answer:
        """At first, candidates fail (HTTP 400, not retried) on three questions."""
        if failing and not _is_judge(body) and body["messages"][-1]["content"] in failing:
            return 400, {"error": {"message": "refused"}}
        return deterministic(body, headers)

    runs = {"run": tmp_path / "run", "staged": tmp_path / "staged"}
    with OpenAIServer(answer=answer) as server:
        candidates, judge = _specs(server)
        for run in runs.values():  # one candidate answered, without judging; three failed
            assert api.generate(EXAMPLE, candidates[:1], run).stage.errors == 3
        failing.clear()
        server.requests.clear()
        summaries = api.run(EXAMPLE, candidates, judge, runs["run"], scoring=CB).stages
        judged = sum(_is_judge(body) for body in server.requests)
        server.requests.clear()
        api.generate(EXAMPLE, candidates, runs["staged"])
        api.judge(runs["staged"], judge)
        staged_judged = sum(_is_judge(body) for body in server.requests)
    assert stored(runs["run"]) == stored(runs["staged"])
    assert judged == staged_judged  # no failed answer was judged before it was replaced
    reasons = [v[5] for v in stored(runs["run"])["verdicts"]]
    assert not [r for r in reasons if r and "produced no response" in r]
    assert (summaries[0].already_done, summaries[1].total) == (5, 16)
    assert summaries[1].errors == len(summaries[1].unscored) > 0


def test_one_model_answering_and_judging_goes_stage_after_stage(tmp_path: Path) -> None:
    with OpenAIServer(answer=deterministic) as server:
        spec = f"openai:same@{server.base_url}"
        summaries = api.run(EXAMPLE, [spec], spec, tmp_path / "run", scoring=CB).stages
        order = [_is_judge(body) for body in server.requests]
    first_judge = order.index(True)
    assert first_judge == 8 and all(order[first_judge:])  # eight answers, then only judging
    assert [s.stage for s in summaries] == ["generate", "judge"]


def test_the_run_command_opens_its_store_once(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """`checkbench run` opens the run store once: the scores, the calls table and the next
    steps it prints are read from the store that the run wrote."""
    from checkbench.cli import app, commands  # noqa: F401  (registers the commands)

    opened = []
    open_store = RunStore.__init__

    def counted(self: RunStore, run_dir: str | Path, **kwargs: Any) -> None:
        opened.append(Path(run_dir))
        open_store(self, run_dir, **kwargs)

    monkeypatch.setattr(RunStore, "__init__", counted)
    out = tmp_path / "run"
    with OpenAIServer(answer=deterministic) as server:
        candidates, judge = _specs(server)
        args = ["run", str(EXAMPLE), "--out", str(out), "--model", candidates[0], "--judge", judge]
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert opened == [out]
    assert len(stored(out)["verdicts"]) > 0


def _run_cmd(bench: Path, out: Path, server: OpenAIServer) -> list[str]:
    candidates, judge = _specs(server)
    return [
        *(sys.executable, "-m", "checkbench", "run", str(bench), "--out", str(out)),
        *("--model", candidates[0], "--judge", judge, "--concurrency", "4"),
        *("--protocol", "conv-to-bench"),
    ]


def _bench(path: Path, n: int) -> Path:
    with path.open("w") as out:
        for i in range(n):
            record = {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"question {i}"}],
                "checklist": [{"id": "c1", "text": "answers"}, {"id": "c2", "text": "is short"}],
            }
            out.write(json.dumps(record) + "\n")
    return path


def _slow(body: dict[str, Any], headers: dict[str, str]) -> Answer:
    """A canned answer, whose every check the judge finds met, after a moment."""
    status, payload = default_answer(body, headers)
    return status, payload, 0.02


def test_a_run_killed_while_judging_as_it_answers_resumes_without_paying_twice(
    tmp_path: Path,
) -> None:
    n, workers = 60, 8  # the candidate's 4 and the judge's 4
    bench, out = _bench(tmp_path / "bench.jsonl", n), tmp_path / "run"
    db = out / "run.sqlite"
    with OpenAIServer(answer=_slow) as server:
        proc = subprocess.Popen(_run_cmd(bench, out, server), stderr=subprocess.DEVNULL)
        kill_once(proc, db, "SELECT COUNT(*) FROM verdicts", 20)
        sent_before = len(server.requests)
        assert count_rows(db, "SELECT COUNT(*) FROM responses") < n
        rerun = subprocess.run(_run_cmd(bench, out, server), capture_output=True, text=True)
        assert rerun.returncode == 0, rerun.stderr
        sent = len(server.requests)
        whole_verdicts = stored(out)["verdicts"]
        again = subprocess.run(_run_cmd(bench, out, server), capture_output=True, text=True)
        assert again.returncode == 0 and len(server.requests) == sent  # nothing left to do
        with OpenAIServer(answer=_slow) as fresh:
            whole = subprocess.run(_run_cmd(bench, tmp_path / "whole", fresh), capture_output=True)
            assert whole.returncode == 0
            assert b"generate + judge (openai:judge" in whole.stderr  # one bar for both
            paid_once = len(fresh.requests)
    # the killed run and its rerun hold what one uninterrupted run holds (its endpoint aside)
    assert count_rows(db, "SELECT COUNT(*) FROM responses WHERE ok") == n
    whole_run = stored(tmp_path / "whole")["verdicts"]
    assert len(whole_verdicts) == len(whole_run) == 2 * n
    assert [v[4:] for v in whole_verdicts] == [v[4:] for v in whole_run]
    assert {v[4] for v in whole_verdicts} == {True}
    # only the calls in flight at the kill may be paid twice
    assert paid_once <= sent <= paid_once + workers
    assert sent_before < sent
