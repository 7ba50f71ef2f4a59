"""Named models with their own endpoints: the models file, the inline form, JSON-mode
refusals per endpoint, and calls (retries, timeouts) made visible."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.llm import ChatRequest, ModelOptions, open_backend, parse_model_spec
from checkbench.llm.models_file import load_models_file
from checkbench.schema import Message
from checkbench.steps.caller import Caller
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, completion, default_answer, verdicts
from tests.conftest import run_cli


def bench(path: Path, n: int = 3) -> Path:
    """A JSONL benchmark of `n` items with one check each."""
    lines = [
        json.dumps(
            {
                "id": f"q{i}",
                "messages": [{"role": "user", "content": f"question {i}"}],
                "checklist": [{"id": "c1", "text": "answers"}],
            }
        )
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_models_file_mistakes_are_one_located_line(tmp_path: Path) -> None:
    path = tmp_path / "checkbench.toml"
    path.write_text('[models.a]\nmodel = "x"\n\n[models.b]\nmodel = "y"\nconcurrency = 0\n')
    with pytest.raises(InputError) as err:
        load_models_file(path)
    assert str(err.value).startswith(f"{path}:6: field 'models.b.concurrency'")
    path.write_text('[models.a]\nmodle = "x"\n')
    with pytest.raises(InputError, match=r":2: field 'models.a.modle'"):
        load_models_file(path)
    path.write_text('[models.a]\nmodel = "x\n')
    with pytest.raises(InputError, match=r":2: not valid TOML"):
        load_models_file(path)
    result = run_cli("generate", str(bench(tmp_path / "b.jsonl")), "-o", "run", "-m", "a",
                     "--models", str(path), cwd=tmp_path)  # fmt: skip
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "not valid TOML" in result.stderr
    assert not (tmp_path / "run").exists()


def test_inline_spec_and_alias_resolve_to_their_own_endpoints(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(
        '[models.qwen]\nmodel = "Qwen/Qwen2.5-7B"\nbase_url = "http://gpu:8000/v1"\n'
        "concurrency = 3\ntimeout = 7\nretries = 1\ntemperature = 0.7\n"
        "price = { input = 0.1, output = 0.2 }\n"
    )
    options = ModelOptions(base_url="http://elsewhere/v1", models_file=path)
    alias = parse_model_spec("qwen", options)
    assert (alias.name, alias.target, alias.endpoint(options)) == (
        "qwen",
        "Qwen/Qwen2.5-7B",
        "http://gpu:8000/v1",
    )
    backend = open_backend("qwen", options)
    assert (backend.max_concurrency, backend.retries, backend.sampling.temperature) == (3, 1, 0.7)
    inline = parse_model_spec("openai:m@http://host:1/v1/", options)
    assert (inline.target, inline.endpoint(options)) == ("m", "http://host:1/v1")
    plain = parse_model_spec("openai:m", options)
    assert plain.endpoint(options) == "http://elsewhere/v1"
    assert len({alias.identity(options), inline.identity(options), plain.identity(options)}) == 3
    with pytest.raises(InputError, match="models file: qwen"):
        parse_model_spec("qwne", options)


def test_an_endpoint_name_stands_for_the_url_in_the_identity(tmp_path: Path) -> None:
    def identity(url: str, name: str | None, model: str = "gpt-4o") -> str:
        path = tmp_path / "models.toml"
        named = f'endpoint_name = "{name}"\n' if name else ""
        path.write_text(f'[models.j]\nmodel = "{model}"\nbase_url = "{url}"\n{named}')
        options = ModelOptions(models_file=path)
        return open_backend("j", options).identity

    moved = identity("http://127.0.0.1:4001/v1", "replay"), identity("http://10.0.0.2/v1", "replay")
    assert moved[0] == moved[1]  # the same server, wherever it is reached
    assert identity("http://127.0.0.1:4001/v1", "other") != moved[0]
    assert identity("http://127.0.0.1:4001/v1", "replay", model="gpt-4o-mini") != moved[0]
    assert identity("http://127.0.0.1:4001/v1", None) != identity("http://10.0.0.2/v1", None)
    path = tmp_path / "bad.toml"
    path.write_text('[models.j]\nmodel = "m"\nendpoint_name = ""\n')
    with pytest.raises(InputError, match="models.j.endpoint_name") as bad:
        load_models_file(path)
    assert bad.value.line == 3


def test_candidates_and_judge_reach_their_own_endpoints(tmp_path: Path) -> None:
    """The common set-up: candidates on a local server (named in ./checkbench.toml), the judge
    on another endpoint given inline."""
    with OpenAIServer() as local, OpenAIServer() as hosted:
        (tmp_path / "checkbench.toml").write_text(
            f'[models.cand]\nmodel = "served-model"\nbase_url = "{local.base_url}"\n'
        )
        judge = f"openai:judge-model@{hosted.base_url}"
        args = ["generate", str(bench(tmp_path / "b.jsonl")), "-o", "run", "-m", "cand"]
        result = run_cli(*args, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        judged = run_cli("judge", "run", "-j", judge, cwd=tmp_path)
        assert judged.returncode == 0, judged.stderr
    assert len(local.requests) == 3 and len(hosted.requests) == 3
    assert {b["model"] for b in local.requests} == {"served-model"}
    assert all("response_format" not in b for b in local.requests)
    assert {b["model"] for b in hosted.requests} == {"judge-model"}
    assert all("response_format" in b for b in hosted.requests)
    assert "cand" in result.stdout  # the alias names the candidate in the tables
    with RunStore.existing(tmp_path / "run") as store:
        assert store.models() == ["cand"]
        assert json.loads(store.model_identities()["cand"])["endpoint"] == local.base_url


SCHEMA = {"type": "object", "properties": {"c1": {"type": "object"}}}
REQUEST = ChatRequest(messages=(Message(role="user", content="judge"),), json_schema=SCHEMA)


async def _ask(tmp_path: Path, server: OpenAIServer, n: int, **options: object) -> Caller:
    with RunStore(tmp_path) as store:
        backend = open_backend(f"openai:j@{server.base_url}", ModelOptions(**options))  # type: ignore[arg-type]
        caller = Caller(store)
        for i in range(n):
            request = REQUEST.model_copy(update={"max_tokens": 100 + i})
            await caller.call(backend, request, role="judge")
        await backend.aclose()
        return caller


async def test_json_schema_refused_with_a_4xx_falls_back_once_per_endpoint(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(body: dict, headers: dict[str, str]) -> tuple[int, object]:
        if body.get("response_format", {}).get("type") == "json_schema":
            return 400, {"error": "response_format json_schema is not supported"}
        return default_answer(body, headers)

    with caplog.at_level(logging.WARNING, "checkbench"), OpenAIServer(refuse) as server:
        caller = await _ask(tmp_path, server, 4)
    formats = [b["response_format"]["type"] for b in server.requests]
    assert formats == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
    assert caller.counters.errors == 0
    warnings = [r.getMessage() for r in caplog.records if "refused json_schema" in r.getMessage()]
    assert len(warnings) == 1 and server.base_url in warnings[0]


async def test_a_transient_500_never_switches_the_json_mode(tmp_path: Path) -> None:
    failed = []

    def fail_once(body: dict, headers: dict[str, str]) -> tuple[int, object]:
        if not failed:
            failed.append(1)
            return 500, {"error": "internal error"}
        return 200, completion(verdicts(body))

    with OpenAIServer(fail_once) as server:
        caller = await _ask(tmp_path, server, 5)
    assert {b["response_format"]["type"] for b in server.requests} == {"json_schema"}
    assert len(server.requests) == 6 and caller.counters.retries == 1


def test_retries_and_timeouts_are_options_counted_in_the_store_and_summary(
    tmp_path: Path,
) -> None:
    seen: list[int] = []

    def slow_then_fast(body: dict, headers: dict[str, str]) -> tuple:
        seen.append(1)
        if len(seen) == 1:
            return 200, completion("late"), 1.5  # the first attempt outlives --timeout
        if len(seen) == 2:
            return 503, {"error": "busy"}
        return default_answer(body, headers)

    with OpenAIServer(slow_then_fast) as server:
        args = ["generate", str(bench(tmp_path / "b.jsonl", 1)), "-o", "run"]
        args += ["-m", f"openai:m@{server.base_url}", "--timeout", "0.5", "--retries", "2"]
        result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(seen) == 3
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        row = db.execute("SELECT status, attempts, timeouts FROM calls").fetchall()
    assert row == [("ok", 3, 1)]
    line = next(x for x in result.stdout.splitlines() if "(candidate)" in x)
    counts = line.split("(candidate)", 1)[1].split()[:4]
    assert counts == ["1", "2", "1", "0"]  # calls, retries, timed out, failed
    with OpenAIServer(slow_then_fast) as server:
        seen.clear()
        args[-5] = f"openai:m@{server.base_url}"
        args[-1] = "0"  # no retries: the timed-out attempt is the only one
        args[3] = "run2"
        result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 1 and "every attempt failed in: generate" in result.stderr
    assert len(seen) == 1
