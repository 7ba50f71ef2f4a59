"""`checkbench view`: the report served on the loopback interface, item records fetched page
by page instead of embedded, for runs too large for one file."""

from __future__ import annotations

import hmac
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from checkbench.errors import InputError
from checkbench.report.annotate import Annotation, AnnotationError
from checkbench.report.assemble import build_report
from checkbench.report.items import ItemDetails
from checkbench.report.page import Page, render_page
from checkbench.report.run import ReportOptions
from checkbench.store import RunStore
from checkbench.store.damage import DAMAGE
from checkbench.store.labels import human_judge

HOST = "127.0.0.1"
MAX_PAGE = 200
"""Most item records one request may ask for."""
MAX_QUERY = 500
MAX_HITS = 1000
"""Most positions one search request returns; `next` asks for the following ones."""
MAX_BODY = 16384
"""Most bytes of a label request's body."""


class _BadRequest(Exception):
    pass


class _NotFound(Exception):
    pass


def _positions(query: dict[str, list[str]], count: int) -> list[int]:
    """The `at` parameter: comma-separated item positions, each in range."""
    try:
        positions = [int(part) for part in query.get("at", [""])[0].split(",") if part]
    except ValueError:
        raise _BadRequest("at: expected comma-separated integers") from None
    if not positions or len(positions) > MAX_PAGE:
        raise _BadRequest(f"at: give 1 to {MAX_PAGE} positions")
    if any(not 0 <= p < count for p in positions):
        raise _BadRequest(f"at: positions must lie in [0, {count})")
    return positions


def _after(query: dict[str, list[str]]) -> int:
    """The `after` parameter of a search: the position its previous page ended at (or -1)."""
    try:
        return int(query.get("after", ["-1"])[0])
    except ValueError:
        raise _BadRequest("after: expected an integer") from None


class _Handler(BaseHTTPRequestHandler):
    """GET / (the page), /api/items?at=P,Q,... (records), /api/search?q=TEXT&after=P (up to
    MAX_HITS positions after P, and `next` to ask for the following ones when there may be
    more). With an annotation session also GET /annotate (the labelling page),
    /api/annotate/queue?offset=N&limit=M (queue entries) and POST /api/annotate/label (one
    label: the page's CSRF token in X-CSRF-Token, from the server's own origin)."""

    page: bytes
    details: ItemDetails
    damaged_row: Callable[[], InputError | None]
    policy: str
    allowed_hosts: set[str]
    annotation: Annotation | None = None

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        if self.headers.get("Host", "") not in self.allowed_hosts:
            self._send(HTTPStatus.FORBIDDEN, b"unknown host", "text/plain")
            return
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        try:
            if url.path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, self.page, "text/html; charset=utf-8")
            elif url.path == "/api/items":
                self._json(self.details.records(_positions(query, len(self.details))))
            elif self.annotation is not None and url.path in ("/annotate", "/api/annotate/queue"):
                self._annotate_get(url.path, query)
            elif url.path == "/api/search":
                text = query.get("q", [""])[0]
                if not text or len(text) > MAX_QUERY:
                    raise _BadRequest(f"q: give 1 to {MAX_QUERY} characters")
                found = self.details.search(text, after=_after(query), limit=MAX_HITS)
                more = {"next": found[-1]} if len(found) == MAX_HITS else {}
                self._json({"positions": found, **more})
            else:
                raise _NotFound
        except _NotFound:
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
        except _BadRequest as exc:
            self._send(HTTPStatus.BAD_REQUEST, str(exc).encode(), "text/plain")
        except DAMAGE:  # a row read for the page is damaged: one line here and to the page
            damaged = self.damaged_row()
            if damaged is None:
                raise
            sys.stderr.write(f"error: {damaged}\n")
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, str(damaged).encode(), "text/plain")

    def _annotate_get(self, path: str, query: dict[str, list[str]]) -> None:
        assert self.annotation is not None
        if path == "/annotate":
            page = self.annotation.page
            policy = page.policy + "; frame-ancestors 'none'"
            self._send(HTTPStatus.OK, page.html.encode(), "text/html; charset=utf-8", policy)
            return
        try:
            offset = int(query.get("offset", ["0"])[0])
            limit = int(query.get("limit", ["20"])[0])
        except ValueError:
            raise _BadRequest("offset, limit: expected integers") from None
        try:
            self._json(self.annotation.entries(offset, limit))
        except AnnotationError as exc:
            raise _BadRequest(str(exc)) from None

    def do_POST(self) -> None:  # noqa: N802 (the http.server name)
        """One label; refused unless it comes from this server's page (host, origin, token)."""
        if self.headers.get("Host", "") not in self.allowed_hosts:
            self._send(HTTPStatus.FORBIDDEN, b"unknown host", "text/plain")
            return
        if self.annotation is None or urlsplit(self.path).path != "/api/annotate/label":
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
            return
        origin = self.headers.get("Origin", "")
        token = self.headers.get("X-CSRF-Token", "")
        same_origin = any(origin == f"http://{host}" for host in self.allowed_hosts)
        if not same_origin or not hmac.compare_digest(
            token.encode(), self.annotation.token.encode()
        ):
            self._send(HTTPStatus.FORBIDDEN, b"not from this server's page", "text/plain")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            length = -1
        content_type = self.headers.get("Content-Type", "").split(";")[0].strip()
        if content_type != "application/json" or not 0 < length <= MAX_BODY:
            message = f"send a JSON body (Content-Type application/json) of 1 to {MAX_BODY} bytes"
            self._send(HTTPStatus.BAD_REQUEST, message.encode(), "text/plain")
            return
        try:
            self._json(self.annotation.label(json.loads(self.rfile.read(length))))
        except (ValueError, UnicodeDecodeError):
            self._send(HTTPStatus.BAD_REQUEST, b"the body is not JSON", "text/plain")
        except AnnotationError as exc:
            self._send(HTTPStatus(exc.status), str(exc).encode(), "text/plain")

    def _json(self, value: Any) -> None:
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
        self._send(HTTPStatus.OK, body, "application/json")

    def _send(
        self, status: HTTPStatus, body: bytes, content_type: str, policy: str | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", policy or self.policy)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: the terminal shows the address, not every request."""


def serve(
    run_dir: str | Path,
    options: ReportOptions | None = None,
    *,
    port: int = 8765,
    ready: Callable[[str], None] = print,
    annotator: str | None = None,
) -> None:
    """Serve the run's report on http://127.0.0.1:PORT/ until interrupted (Ctrl-C); item
    records and searches are read from the store as the page asks for them. With `annotator`
    also the labelling page /annotate, its labels written through a second connection that
    holds the run's writer lock."""
    if annotator is not None:
        human_judge(annotator)  # a bad name fails before the run is opened
    with ExitStack() as stack:
        store = stack.enter_context(RunStore.existing(run_dir, threads=True, read_only=True))
        annotation = None
        if annotator is not None:
            writer = stack.enter_context(RunStore.existing(run_dir, writer=True, threads=True))
            annotation = Annotation(writer, annotator)
        report = build_report(store, options, served=True)
        _serve(render_page(report.data), report.details, store, port, ready, annotation)


def _serve(
    page: Page,
    details: ItemDetails,
    store: RunStore,
    port: int,
    ready: Callable[[str], None],
    annotation: Annotation | None = None,
) -> None:
    try:
        server = ThreadingHTTPServer((HOST, port), _Handler)
    except OSError as exc:
        raise InputError(
            f"cannot listen on {HOST}:{port} ({exc.strerror})", field="--port"
        ) from None
    bound = server.server_address[1]
    server.RequestHandlerClass = type(
        "ReportHandler",
        (_Handler,),
        {
            "page": page.html.encode(),
            "details": details,
            "damaged_row": store.damaged_row,
            "policy": page.policy + "; frame-ancestors 'none'",
            "allowed_hosts": {f"{HOST}:{bound}", f"localhost:{bound}"},
            "annotation": annotation,
        },
    )
    ready(f"http://{HOST}:{bound}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
