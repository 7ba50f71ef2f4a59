"""One self-contained HTML page: our stylesheet and script inline, the data as inert JSON.

Data never becomes markup: it sits in <script type="application/json"> blocks with every
character that could end the block or start markup escaped, and the script renders it with
textContent only. A Content-Security-Policy admits exactly our inline script and style (by
hash), so even markup that slipped through could not run.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

ASSETS = files("checkbench.report") / "assets"
_JSON_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: Any) -> str:
    """Compact JSON that is safe inside a <script> element: no '<', '>' or '&' (so no
    '</script>' or '<!--'), and no U+2028/2029; the escapes decode to the same strings."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.translate(_JSON_ESCAPES)


def _digest(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def content_security_policy(script: str, style: str, *, served: bool) -> str:
    """Nothing loads or runs but our own inline script and style; a served page may also fetch
    from its own server."""
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src '{_digest(script)}'",
            f"style-src '{_digest(style)}'",
            "connect-src 'self'" if served else "connect-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def _block(element_id: str, value: Any) -> str:
    return f'<script type="application/json" id="{element_id}">{script_json(value)}</script>'


@dataclass(frozen=True)
class Page:
    """The HTML and the Content-Security-Policy it carries (a server sends it as a header)."""

    html: str
    policy: str


def render_page(data: dict[str, Any], chunks: list[dict[str, Any]] | None = None) -> Page:
    """The report page. With `chunks` the item records are embedded (a file that opens
    offline); without, the page fetches them from the server that serves it."""
    served = chunks is None
    script = (ASSETS / "report.js").read_text(encoding="utf-8")
    style = (ASSETS / "report.css").read_text(encoding="utf-8")
    if "</" in script or "</" in style:
        raise ValueError("inline assets must not contain '</'")
    blocks = [_block("cb-data", {**data, "mode": "served" if served else "file"})]
    blocks += [_block(f"cb-chunk-{n}", chunk) for n, chunk in enumerate(chunks or [])]
    template = (ASSETS / "page.html").read_text(encoding="utf-8")
    head, rest = template.split("{{data}}")
    policy = content_security_policy(script, style, served=served)
    head = head.replace("{{csp}}", policy).replace("{{style}}", style)
    return Page(head + "\n".join(blocks) + rest.replace("{{script}}", script), policy)
