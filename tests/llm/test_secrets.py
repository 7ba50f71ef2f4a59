"""The API key never leaves the environment: an endpoint that echoes the Authorization header
(in a 401 body and inside a 200 answer) puts it nowhere in stdout, run.sqlite or report.html."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from checkbench.redact import REDACTED, redact, register_secret
from checkbench.report.page import read_page
from checkbench.testing import OpenAIServer, completion
from tests.conftest import run_cli
from tests.llm.test_endpoints import bench

KEY = "sk-echo-test-0123456789abcdef"


def echo(body: dict, headers: dict[str, str]) -> tuple[int, object]:
    """Candidates: 401 for the first item with the header in the body; otherwise the header
    inside the answer. Judges: the header in the reason of every verdict."""
    auth = headers.get("Authorization", "")
    text = str(body["messages"])
    if "response_format" in body:
        schema = body["response_format"].get("json_schema", {}).get("schema") or {}
        checks = {c: {"reason": f"saw {auth}", "verdict": "yes"} for c in schema["properties"]}
        return 200, completion(json.dumps(checks))
    if "question 0" in text:
        return 401, {"error": {"message": f"invalid key {auth}", "key": auth.split()[-1]}}
    return 200, completion(f"your header was {auth} and your key {auth.split()[-1]}")


def test_an_echoing_endpoint_leaks_the_key_nowhere(tmp_path: Path) -> None:
    env = {"ECHO_KEY": KEY}
    with OpenAIServer(echo) as server:
        spec = f"openai:echo@{server.base_url}"
        key = ["--api-key-env", "ECHO_KEY"]
        outputs = [
            run_cli(
                "generate",
                str(bench(tmp_path / "b.jsonl", 3)),
                "-o",
                "run",
                "-m",
                spec,
                *key,
                env=env,
                cwd=tmp_path,
            ),  # fmt: skip
            run_cli("judge", "run", "-j", spec, *key, env=env, cwd=tmp_path),
            run_cli("report", "run", env=env, cwd=tmp_path),
        ]
    # the server did receive the key, and echoed it
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server.headers)
    for result in outputs:
        assert result.returncode == 0, result.stderr
        assert KEY not in result.stdout + result.stderr
    assert "401" in outputs[0].stdout  # the failure itself is still reported
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        dump = "\n".join(db.iterdump())
    assert REDACTED in dump and "invalid key" in dump
    assert KEY not in dump and KEY[3:20] not in dump
    report = read_page(tmp_path / "run" / "report.html")
    assert KEY not in report and KEY[3:20] not in report


def test_redactor_removes_keys_and_authorization_values_but_not_prose() -> None:
    register_secret("sk-registered-123456")
    text = (
        'HTTP 401: {"error": "sk-registered-123456 rejected", '
        '"headers": {"Authorization": "Bearer sk-unknown-abcdefghijkl"}} the bearer of news'
    )
    cleaned = redact(text)
    assert "sk-registered" not in cleaned and "sk-unknown" not in cleaned
    assert cleaned.endswith("the bearer of news") and "rejected" in cleaned
    assert redact("Authorization: Bearer abc") == f"Authorization: {REDACTED}"
