"""Replicas: a model served by several endpoints spreads its calls over the healthy ones, sets
a failing one aside (its calls at once no longer counted in the model's limit), answers as one
endpoint does, and keeps its identity whichever replicas serve it, so a run resumes when they
change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from checkbench import api
from checkbench.errors import InputError
from checkbench.llm import ModelOptions
from checkbench.llm.models_file import load_models_file
from checkbench.steps.caller import LIMITS_META
from checkbench.store import RunStore
from checkbench.testing import Answer, OpenAIServer, completion, verdicts
from tests.conftest import free_port
from tests.llm.test_endpoints import bench

ITEMS = 24


def echo(body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    """A deterministic answer to each request (after 20 ms, so that calls overlap)."""
    if "response_format" in body:
        return 200, completion(verdicts(body)), 0.02
    return 200, completion(f"answer to {body['messages'][-1]['content']}"), 0.02


def broken(_body: dict[str, Any], _headers: dict[str, str]) -> Answer:
    return 500, {"error": "replica down"}


def _models(path: Path, urls: list[str]) -> ModelOptions:
    listed = ", ".join(f'"{url}"' for url in urls)
    path.write_text(f'[models.m]\nmodel = "served"\nbase_urls = [{listed}]\nconcurrency = 2\n')
    return ModelOptions(models_file=path)


def _run(items: Path, run: Path, options: ModelOptions, model: str = "m") -> None:
    api.generate(items, [model], run, options=options)
    api.judge(run, model, options=options)


def _answers(run: Path) -> tuple[dict[str, str | None], list[tuple[str, str, bool | None]]]:
    with RunStore.existing(run) as store:
        responses = {r.item_id: r.content for r in store.responses()}
        checks = sorted((v.item_id, v.check_id, v.passed) for v in store.verdicts())
    return responses, checks


def test_calls_spread_over_healthy_replicas_and_the_run_resumes_on_others(
    tmp_path: Path,
) -> None:
    items = bench(tmp_path / "b.jsonl", ITEMS)
    refused = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with OpenAIServer(echo) as a, OpenAIServer(echo) as b, OpenAIServer(broken) as bad:
        options = _models(
            tmp_path / "replicas.toml", [bad.base_url, a.base_url, refused, b.base_url]
        )
        _run(items, tmp_path / "run", options)
        counts = (len(a.requests), len(b.requests), len(bad.requests))
        with RunStore.existing(tmp_path / "run") as store:
            limits = store.get_meta(LIMITS_META)
        # the same model at one endpoint gives the same answers and verdicts
        single = tmp_path / "single.toml"
        single.write_text(f'[models.one]\nmodel = "served"\nbase_url = "{a.base_url}"\n')
        _run(items, tmp_path / "alone", ModelOptions(models_file=single), "one")
        assert _answers(tmp_path / "run") == _answers(tmp_path / "alone")
        # other replicas, same model: everything is found done, nothing is asked again
        before = len(a.requests) + len(b.requests)
        _run(items, tmp_path / "run", _models(tmp_path / "other.toml", [b.base_url]))
        assert len(a.requests) + len(b.requests) == before
    served_a, served_b, served_bad = counts
    assert served_a + served_b == 2 * ITEMS  # every call answered once, by a healthy replica
    assert min(served_a, served_b) >= ITEMS // 2  # spread by load, not all to one
    # set aside after failing: asked with its first two slots in each command (and at most
    # once more after a second), not again while the others serve
    assert served_bad <= 6
    assert limits == {"m": 4}  # the two replicas that answer, 2 each: not the two down
    responses, checks = _answers(tmp_path / "run")
    assert len(responses) == ITEMS and all(content for content in responses.values())
    assert [passed for *_, passed in checks] == [True] * ITEMS
    with RunStore.existing(tmp_path / "run") as store:
        assert store.models() == ["m"]


def test_replicas_are_listed_once_and_instead_of_a_single_endpoint(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text(
        '[models.m]\nmodel = "x"\nbase_url = "http://a/v1"\nbase_urls = ["http://b/v1"]\n'
    )
    with pytest.raises(InputError, match=r":4: field 'models.m.base_urls'.*not both"):
        load_models_file(path)
    path.write_text('[models.m]\nmodel = "x"\nbase_urls = ["http://b/v1", "http://b/v1/"]\n')
    with pytest.raises(InputError, match="listed twice"):
        load_models_file(path)
