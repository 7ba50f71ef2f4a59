"""What a model answers with stays what it was in a run: a run directory resumed with other
sampling flags (--temperature, --max-tokens, --seed) is refused in one line, as are replicas
of a replica-form entry that share no server with those that answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench import api
from checkbench.errors import InputError
from checkbench.llm import ModelOptions
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion


def _bench(path: Path) -> Path:
    item = {
        "id": "q1",
        "messages": [{"role": "user", "content": "Name a colour."}],
        "checklist": [{"id": "c1", "text": "names a colour"}],
    }
    path.write_text(json.dumps(item) + "\n")
    return path


def test_other_sampling_flags_are_refused_and_the_same_ones_resume(tmp_path: Path) -> None:
    bench, run = _bench(tmp_path / "b.jsonl"), tmp_path / "run"

    def answer(body: dict, _headers: dict) -> Reply:
        return Reply(body=completion(f"t={body.get('temperature')} n={body.get('max_tokens')}"))

    with OpenAIServer(answer) as server:
        model = [f"openai:stub@{server.base_url}"]
        api.generate(bench, model, run, settings=api.GenerationSettings(temperature=0.7))
        refused = []
        for other in (api.GenerationSettings(), api.GenerationSettings(max_tokens=7)):
            with pytest.raises(InputError, match="other sampling flags") as error:
                api.generate(bench, model, run, settings=other)
            refused.append(error.value)
        api.generate(bench, model, run, settings=api.GenerationSettings(temperature=0.7))
        asked = [(r.get("temperature"), r.get("max_tokens")) for r in server.requests]
    with RunStore.existing(run) as store:
        answers = [r.content for r in store.responses()]
    assert asked == [(0.7, 1024)]
    assert answers == ["t=0.7 n=1024"]
    assert all(e.path == str(run / "run.sqlite") and "temperature 0.7" in str(e) for e in refused)


def test_replicas_that_share_no_server_with_the_run_are_refused(tmp_path: Path) -> None:
    bench, run, models = _bench(tmp_path / "b.jsonl"), tmp_path / "run", tmp_path / "m.toml"
    options = ModelOptions(models_file=models)

    def serve(*servers: OpenAIServer) -> None:
        urls = ", ".join(f'"{server.base_url}"' for server in servers)
        models.write_text(f'[models.r]\nmodel = "x"\nbase_urls = [{urls}]\n')

    with (
        OpenAIServer(Reply(body=completion("a"))) as a,
        OpenAIServer(Reply(body=completion("b"))) as b,
        OpenAIServer(Reply(body=completion("c"))) as c,
    ):
        serve(a, b)
        api.generate(bench, ["r"], run, options=options)
        serve(c)
        with pytest.raises(InputError, match="share no server") as refused:
            api.generate(bench, ["r"], run, options=options)
        serve(b, c)  # one replica added, one removed: the same model, resumed
        api.generate(bench, ["r"], run, options=options)
        asked = len(a.requests) + len(b.requests) + len(c.requests)
    assert refused.value.path == str(run / "run.sqlite")
    assert asked == 1
