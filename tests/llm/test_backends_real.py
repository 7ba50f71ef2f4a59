"""Both backends against real models: the embedded llama.cpp model and a local llama.cpp server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from checkbench import api
from checkbench.convbench.domain import DomainAnswer
from checkbench.judges.checklist import verdicts_answer
from checkbench.llm import ModelOptions, open_backend
from checkbench.llm.base import ChatBackend, ChatRequest
from checkbench.scan.builder.decisions import refine_answer
from checkbench.schema import Message
from checkbench.steps.answers import answer_schema
from checkbench.steps.caller import Caller
from checkbench.steps.model import StepModel
from checkbench.store import RunStore
from tests.conftest import EXAMPLE, run_cli
from tests.llm.conftest import SERVED_MODEL

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
}


def _ask(text: str, **params: object) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=text),), **params)  # type: ignore[arg-type]


@pytest.fixture(params=["local", "server"])
async def backend(request: pytest.FixtureRequest) -> ChatBackend:
    if request.param == "local":
        chosen = open_backend("local")
    else:
        base_url = request.getfixturevalue("llama_server")
        chosen = open_backend(f"openai:{SERVED_MODEL}", ModelOptions(base_url=base_url))
    yield chosen
    await chosen.aclose()


async def test_chat_reports_usage(backend: ChatBackend) -> None:
    result = await backend.chat(_ask("Say hello.", max_tokens=8))
    assert result.content.strip()
    assert result.prompt_tokens > 0 and 0 < result.completion_tokens <= 8


async def test_json_output_follows_the_schema(backend: ChatBackend) -> None:
    result = await backend.chat(
        _ask("Is water wet? Reply in JSON.", max_tokens=20, json_schema=SCHEMA)
    )
    assert json.loads(result.content)["answer"] in {"yes", "no"}


async def test_logprobs_give_top_alternatives(backend: ChatBackend) -> None:
    result = await backend.chat(
        _ask("Is fire hot? Answer yes or no.", max_tokens=1, top_logprobs=5)
    )
    assert result.logprobs is not None and len(result.logprobs) == 1
    top = result.logprobs[0].top
    assert len(top) == 5 and all(isinstance(v, float) and v <= 0 for v in top.values())


async def test_seed_makes_sampling_repeatable(backend: ChatBackend) -> None:
    request = _ask("Name a fruit.", max_tokens=12, temperature=1.0, seed=7)
    first, second = await backend.chat(request), await backend.chat(request)
    assert first.content == second.content


@pytest.mark.slow
async def test_typed_answers_are_written_under_their_schema(
    backend: ChatBackend, tmp_path: Path
) -> None:
    """The schemas the stages send (a union of decisions, one entry per check id, a yes/no) are
    grammars the model writes under: the reply has exactly the properties asked for."""
    asked = [
        (refine_answer(("testing", "debugging"), 20, 12, 20), "Should these two merge? JSON."),
        (verdicts_answer(("c1", "c2")), "Does 'Paris.' name the capital of France? JSON."),
        (DomainAnswer, "Is 'fix my Python loop' about coding? JSON."),
    ]
    with RunStore(tmp_path) as store:
        model = StepModel(backend, Caller(store))
        for answer, question in asked:
            reply = await model.ask(_ask(question, max_tokens=400), answer, role="test", reasks=0)
            assert reply.raw is not None
            assert list(json.loads(reply.raw)) == answer_schema(answer)["required"]
        assert reply.value is not None and reply.value.in_domain in ("yes", "no")


def test_official_openai_client_sees_the_same_server(llama_server: str) -> None:
    client = openai.OpenAI(base_url=llama_server, api_key="unused")
    reply = client.chat.completions.create(
        model=SERVED_MODEL, messages=[{"role": "user", "content": "Say hi."}], max_tokens=4
    )
    assert reply.choices[0].message.content


def test_generate_over_http_into_a_run(llama_server: str, tmp_path: Path) -> None:
    summary = api.generate(
        EXAMPLE,
        [f"openai:{SERVED_MODEL}"],
        tmp_path / "run",
        options=ModelOptions(base_url=llama_server, concurrency=2),
        settings=api.GenerationSettings(max_tokens=16),
    ).stage
    assert (summary.total, summary.errors) == (8, 0)
    with RunStore(tmp_path / "run") as store:
        responses = store.responses()
        usage = store.usage()
    assert len(responses) == 8 and all(r.content for r in responses)
    assert usage[0].role == "candidate" and usage[0].completion_tokens > 0


def test_cli_generate_on_the_embedded_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli("generate", str(EXAMPLE), "--out", str(out), "--max-tokens", "12")
    assert result.returncode == 0, result.stderr
    assert "8 total" in result.stdout and "0 failed" in result.stdout
    rerun = run_cli("generate", str(EXAMPLE), "--out", str(out), "--max-tokens", "12")
    assert "8 already done, 0 model calls" in rerun.stdout


def test_local_backend_survives_long_string_bounds(tmp_path: Path) -> None:
    """llama.cpp crashes the process on a grammar with a very long string bound; the local
    backend tightens such bounds, so the call answers (in a child process, to contain a crash)."""
    script = tmp_path / "ask.py"
    script.write_text(
        "import asyncio, json\n"
        "from checkbench.llm import ChatRequest, open_backend\n"
        "from checkbench.schema import Message\n"
        "schema = {'type': 'object', 'required': ['text'], 'additionalProperties': False,\n"
        "          'properties': {'text': {'type': 'string', 'minLength': 1, 'maxLength': 5000}}}\n"
        "request = ChatRequest(messages=(Message(role='user', content='Say hi in JSON.'),),\n"
        "                      max_tokens=12, json_schema=schema)\n"
        "print(asyncio.run(open_backend('local').chat(request)).content)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.lstrip().startswith('{"text"')
