"""The fake server's OpenAI Batch API: POST /v1/files (purpose "batch"), POST /v1/batches,
GET /v1/batches/{id} and GET /v1/files/{id}/content.

A batch answers each line with the server's answer function, computed from the request alone,
so reruns and tests can predict every answer. It validates like the real API (unique custom
ids, the line fields, the endpoint and the completion window), reports "validating" then
"in_progress" for `polls_in_progress` status checks, stays in progress while `held`, then ends
as `final_status` ("completed", or "expired" keeping the first `keep_on_expiry` answers).
Answers with a status other than 200 go to the error file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from checkbench.testing.answers import Reply


@dataclass
class BatchSettings:
    """How the server's batches progress and end."""

    polls_in_progress: int = 0
    final_status: str = "completed"
    keep_on_expiry: int = 0
    held: bool = False


@dataclass
class Batch:
    id: str
    input_file_id: str
    lines: list[dict[str, Any]]
    status: str = "validating"
    polls: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    problem: str | None = None

    def view(self) -> dict[str, Any]:
        errors = {"object": "list", "data": [{"code": "invalid", "message": self.problem}]}
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": self.input_file_id,
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


def _error(message: str, status: int) -> web.Response:
    return web.json_response({"error": {"message": message}}, status=status)


@dataclass
class BatchAPI:
    """The files and batches one server holds; `answer` turns a line's body into its Reply."""

    answer: Callable[[dict[str, Any]], Reply]
    settings: BatchSettings = field(default_factory=BatchSettings)
    files: dict[str, str] = field(default_factory=dict)
    batches: dict[str, Batch] = field(default_factory=dict)
    downloads: list[str] = field(default_factory=list)

    def lines(self) -> list[dict[str, Any]]:
        """Every request line of every batch created."""
        return [line for batch in self.batches.values() for line in batch.lines]

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v1/files", self._upload),
            web.post("/v1/batches", self._create),
            web.get("/v1/batches/{id}", self._status),
            web.get("/v1/files/{id}/content", self._content),
        ]

    def _file(self, text: str) -> str:
        file_id = f"file-{len(self.files)}"
        self.files[file_id] = text
        return file_id

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or not isinstance(upload, web.FileField):
            return _error("need purpose and file", 400)
        text = upload.file.read().decode("utf-8")
        return web.json_response({"id": self._file(text), "object": "file", "purpose": "batch"})

    async def _create(self, request: web.Request) -> web.Response:
        body = await request.json()
        text = self.files.get(body.get("input_file_id", ""))
        if text is None or body.get("endpoint") != "/v1/chat/completions":
            return _error("bad input", 400)
        if body.get("completion_window") != "24h":
            return _error("bad window", 400)
        lines = [json.loads(raw) for raw in text.splitlines() if raw.strip()]
        batch_id = f"batch_{len(self.batches)}"
        batch = Batch(batch_id, body["input_file_id"], lines, problem=_problem(lines))
        self.batches[batch.id] = batch
        return web.json_response(batch.view())

    async def _status(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return _error("no such batch", 404)
        batch.polls += 1
        if batch.status in ("validating", "in_progress"):
            if batch.problem:
                batch.status = "failed"
            elif self.settings.held or batch.polls <= self.settings.polls_in_progress:
                batch.status = "in_progress"
            else:
                self._finish(batch)
        return web.json_response(batch.view())

    def _finish(self, batch: Batch) -> None:
        expired = self.settings.final_status == "expired"
        kept = batch.lines[: self.settings.keep_on_expiry] if expired else batch.lines
        outputs, errors = [], []
        for n, line in enumerate(kept):
            reply = self.answer(line["body"])
            record = {
                "id": f"{batch.id}_req_{n}",
                "custom_id": line["custom_id"],
                "response": {
                    "status_code": reply.status,
                    "request_id": f"req_{n}",
                    "body": reply.body,
                },
                "error": None,
            }
            (outputs if reply.status == 200 else errors).append(json.dumps(record) + "\n")
        batch.output_file_id = self._file("".join(outputs)) if outputs else None
        batch.error_file_id = self._file("".join(errors)) if errors else None
        batch.status = self.settings.final_status

    async def _content(self, request: web.Request) -> web.Response:
        file_id = request.match_info["id"]
        if file_id not in self.files:
            return _error("no such file", 404)
        self.downloads.append(file_id)
        return web.Response(text=self.files[file_id], content_type="application/jsonl")
