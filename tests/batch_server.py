"""A small aiohttp server on loopback implementing the OpenAI Batch API: POST /v1/files (purpose
"batch"), POST /v1/batches, GET /v1/batches/{id} and GET /v1/files/{id}/content.

A batch answers each line with `answer(body)` (the chat-completion body), computed from the
request alone, so reruns and tests can predict every answer. It validates like the real API
(unique custom ids, the line fields, the endpoint and the completion window), reports
"validating" then "in_progress" for `polls_in_progress` status checks, stays in progress while
`held`, then ends as `final_status` ("completed", or "expired" keeping the first `keep_on_expiry`
answers). Answers with a status other than 200 go to the error file. With `api_key` set, a
request without that bearer key gets 401.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.endpoint_server import ServedInThread, verdicts
from tests.stub_server import completion

Answer = tuple[int, dict[str, Any]]
"""(HTTP status of the line, its JSON body)."""


def echo_answer(body: dict[str, Any]) -> Answer:
    """Judges meet every check; candidates repeat the last user message, with as many
    completion tokens as it has words."""
    if "response_format" in body:
        return 200, completion(verdicts(body))
    question = body["messages"][-1]["content"]
    return 200, completion(f"answer to: {question}", completion_tokens=len(question.split()))


@dataclass
class _Batch:
    id: str
    lines: list[dict[str, Any]]
    status: str = "validating"
    polls: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    problem: str | None = None

    def view(self, input_file_id: str) -> dict[str, Any]:
        errors = {"object": "list", "data": [{"code": "invalid", "message": self.problem}]}
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "errors": errors if self.problem else None,
            "request_counts": {"total": len(self.lines)},
        }


def _problem(lines: list[dict[str, Any]]) -> str | None:
    """Why the real API would fail this file at validation, if it would."""
    ids = [line.get("custom_id") for line in lines]
    if len(set(ids)) != len(ids):
        return "duplicate custom_id"
    for line in lines:
        if line.get("method") != "POST" or line.get("url") != "/v1/chat/completions":
            return "bad method or url"
        if not isinstance(line.get("body"), dict) or "model" not in line["body"]:
            return "bad body"
    return None


@dataclass
class BatchServer(ServedInThread):
    """Runs in a thread; `uploads`, `created`, `polls` and `downloads` record what it saw."""

    answer: Callable[[dict[str, Any]], Answer] = echo_answer
    polls_in_progress: int = 0
    final_status: str = "completed"
    keep_on_expiry: int = 0
    api_key: str | None = None
    held: bool = False
    files: dict[str, str] = field(default_factory=dict)
    batches: dict[str, _Batch] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    headers: list[dict[str, str]] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    port: int = 0

    def lines(self) -> list[dict[str, Any]]:
        """Every request line of every batch created."""
        return [line for batch in self.batches.values() for line in batch.lines]

    def _file(self, text: str) -> str:
        file_id = f"file-{len(self.files)}"
        self.files[file_id] = text
        return file_id

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.headers.append(dict(request.headers))
        if self.api_key and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return web.json_response({"error": {"message": "bad key"}}, status=401)
        return await handler(request)

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or not isinstance(upload, web.FileField):
            return web.json_response({"error": {"message": "need purpose and file"}}, status=400)
        text = upload.file.read().decode("utf-8")
        return web.json_response({"id": self._file(text), "object": "file", "purpose": "batch"})

    async def _create(self, request: web.Request) -> web.Response:
        body = await request.json()
        text = self.files.get(body.get("input_file_id", ""))
        if text is None or body.get("endpoint") != "/v1/chat/completions":
            return web.json_response({"error": {"message": "bad input"}}, status=400)
        if body.get("completion_window") != "24h":
            return web.json_response({"error": {"message": "bad window"}}, status=400)
        lines = [json.loads(raw) for raw in text.splitlines() if raw.strip()]
        batch = _Batch(f"batch_{len(self.batches)}", lines, problem=_problem(lines))
        self.batches[batch.id] = batch
        self.inputs[batch.id] = body["input_file_id"]
        return web.json_response(batch.view(body["input_file_id"]))

    async def _status(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        batch.polls += 1
        if batch.status in ("validating", "in_progress"):
            if batch.problem:
                batch.status = "failed"
            elif self.held or batch.polls <= self.polls_in_progress:
                batch.status = "in_progress"
            else:
                self._finish(batch)
        return web.json_response(batch.view(self.inputs[batch.id]))

    def _finish(self, batch: _Batch) -> None:
        kept = batch.lines[: self.keep_on_expiry] if self.final_status == "expired" else batch.lines
        outputs, errors = [], []
        for n, line in enumerate(kept):
            status, body = self.answer(line["body"])
            record = {
                "id": f"{batch.id}_req_{n}",
                "custom_id": line["custom_id"],
                "response": {"status_code": status, "request_id": f"req_{n}", "body": body},
                "error": None,
            }
            (outputs if status == 200 else errors).append(json.dumps(record) + "\n")
        batch.output_file_id = self._file("".join(outputs)) if outputs else None
        batch.error_file_id = self._file("".join(errors)) if errors else None
        batch.status = self.final_status

    async def _content(self, request: web.Request) -> web.Response:
        file_id = request.match_info["id"]
        if file_id not in self.files:
            return web.json_response({"error": {"message": "no such file"}}, status=404)
        self.downloads.append(file_id)
        return web.Response(text=self.files[file_id], content_type="application/jsonl")

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._auth])
        app.router.add_post("/v1/files", self._upload)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches/{id}", self._status)
        app.router.add_get("/v1/files/{id}/content", self._content)
        return app
