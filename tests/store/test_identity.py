"""A model's identity includes its endpoint and sampling: two endpoints never share answers,
the same model reached twice resumes, samples are distinct calls, the embedded model's answers
do not depend on the order of calls, and reruns re-ask what was left unscored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from checkbench import api
from checkbench.llm import ChatRequest, ModelOptions
from checkbench.schema import Message
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, completion, default_answer, verdicts
from tests.conftest import run_cli
from tests.llm.test_endpoints import bench


def _answer_with(label: str):  # type: ignore[no-untyped-def]
    return lambda body, headers: (200, completion(f"from {label}"))


def test_same_name_on_two_endpoints_never_shares_answers(tmp_path: Path) -> None:
    items = bench(tmp_path / "b.jsonl", 2)
    run = tmp_path / "run"
    with OpenAIServer(_answer_with("A")) as a, OpenAIServer(_answer_with("B")) as b:
        api.generate(items, ["openai:same"], run, options=ModelOptions(base_url=a.base_url))
        # the same spec and name, another endpoint: B is asked, nothing of A's is reused
        api.generate(items, ["openai:same"], run, options=ModelOptions(base_url=b.base_url))
        assert (len(a.requests), len(b.requests)) == (2, 2)
        # the same model reached again resumes: no request anywhere
        api.generate(items, ["openai:same"], run, options=ModelOptions(base_url=a.base_url))
        api.generate(items, ["openai:same"], run, options=ModelOptions(base_url=b.base_url))
        assert (len(a.requests), len(b.requests)) == (2, 2)
        # both inline, in one invocation: the same two models again, under another spelling
        specs = [f"openai:same@{a.base_url}", f"openai:same@{b.base_url}"]
        api.generate(items, specs, run)
        assert (len(a.requests), len(b.requests)) == (2, 2)
    with RunStore.existing(run) as store:
        names = store.models()
        assert names[0] == "openai:same" and len(names) == 2
        contents = [{r.content for r in store.responses(n)} for n in names]
    assert contents == [{"from A"}, {"from B"}]


def test_sampling_defaults_are_part_of_the_identity(tmp_path: Path) -> None:
    items = bench(tmp_path / "b.jsonl", 1)
    run = tmp_path / "run"
    with OpenAIServer() as server:
        models = tmp_path / "models.toml"
        for temperature in (0.0, 0.8, 0.0):
            models.write_text(
                f'[models.m]\nmodel = "x"\nbase_url = "{server.base_url}"\n'
                f"temperature = {temperature}\n"
            )
            api.generate(items, ["m"], run, options=ModelOptions(models_file=models))
        assert [body["temperature"] for body in server.requests] == [0.0, 0.8]
    with RunStore.existing(run) as store:
        assert store.models() == sorted(["m", next(n for n in store.models() if n != "m")])
        assert len(store.models()) == 2


def test_samples_are_distinct_cache_entries() -> None:
    base = ChatRequest(messages=(Message(role="user", content="q"),), temperature=1.0)
    keys = {base.model_copy(update={"sample": k}).cache_key("m") for k in range(3)}
    assert len(keys) == 3
    assert base.model_dump()["sample"] == 0 and "sample" not in base.sampling_params()
    assert not base.deterministic and base.model_copy(update={"seed": 1}).deterministic


def test_embedded_resumed_run_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    """An interruption is modelled as a run over the first items, then the rest."""
    full = bench(tmp_path / "full.jsonl", 4)
    first = tmp_path / "first.jsonl"
    first.write_text("".join(full.read_text().splitlines(keepends=True)[:2]))
    settings = api.GenerationSettings(temperature=1.0, max_tokens=12)
    api.generate(full, ["local"], tmp_path / "whole", settings=settings)
    api.generate(first, ["local"], tmp_path / "resumed", settings=settings)
    api.generate(full, ["local"], tmp_path / "resumed", settings=settings)

    def answers(run: str) -> list[str | None]:
        with RunStore.existing(tmp_path / run) as store:
            return [r.content for r in store.responses()]

    whole = answers("whole")
    assert len(whole) == 4 and all(whole)
    assert answers("resumed") == whole


def test_rerun_re_asks_unscored_past_the_cache_and_exits_0(tmp_path: Path) -> None:
    state = {"good": False}

    def judge(body: dict, headers: dict[str, str]) -> tuple[int, object]:
        if "response_format" in body:
            return 200, completion(verdicts(body) if state["good"] else "not json")
        return default_answer(body, headers)

    with OpenAIServer(judge) as server:
        spec = f"openai:j@{server.base_url}"
        assert run_cli("generate", str(bench(tmp_path / "b.jsonl", 2)), "-o", "run", "-m", spec,
                       cwd=tmp_path).returncode == 0  # fmt: skip
        first = run_cli("judge", "run", "-j", spec, cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        assert "2 left unscored" in first.stdout and "q0 (" in first.stdout
        asked = len(server.requests)
        again = run_cli("judge", "run", "-j", spec, cwd=tmp_path)  # still unusable answers
        assert again.returncode == 0, again.stderr
        assert len(server.requests) > asked  # asked again, not served the cached answer
        assert "2 left unscored" in again.stdout
        state["good"] = True
        fixed = run_cli("judge", "run", "-j", spec, cwd=tmp_path)
        assert fixed.returncode == 0 and "left unscored" not in fixed.stdout
        done = len(server.requests)
        finished = run_cli("judge", "run", "-j", spec, cwd=tmp_path)
        assert finished.returncode == 0 and len(server.requests) == done
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM verdicts WHERE passed IS NULL").fetchone() == (0,)


def test_an_invocation_whose_calls_all_fail_exits_1(tmp_path: Path) -> None:
    with OpenAIServer(lambda body, headers: (500, {"error": "down"})) as server:
        args = ["generate", str(bench(tmp_path / "b.jsonl", 2)), "-o", "run"]
        result = run_cli(*args, "-m", f"openai:j@{server.base_url}", "--retries", "0",
                         cwd=tmp_path)  # fmt: skip
    assert result.returncode == 1 and "every attempt failed in: generate" in result.stderr
