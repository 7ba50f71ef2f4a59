"""One self-contained HTML page: our stylesheet and script inline, the data as inert JSON.

Data never becomes markup: it sits in <script type="application/json"> blocks with every
character that could end the block or start markup escaped, and the script renders it with
textContent only. A Content-Security-Policy admits exactly our inline script and style (by
hash), so even markup that slipped through could not run.

A file's item records are packed: each block's JSON deflated (raw deflate, as the browser's
DecompressionStream inflates it) and embedded byte for byte in a page that declares itself
windows-1252, where every byte is one character; the four bytes script data cannot hold as
they are (NUL, CR, `<`) and the escape `=` itself are written `=` then the byte plus 64. The
rest of such a page is ASCII. The page inflates a block when it first shows one of its items.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import zlib
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from checkbench.stats.notation import NOTATION

ASSETS = files("checkbench.report") / "assets"
_JSON_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: Any, *, ascii_only: bool = False) -> str:
    """Compact JSON that is safe inside a <script> element: no '<', '>' or '&' (so no
    '</script>' or '<!--'), and no U+2028/2029; the escapes decode to the same strings."""
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"), allow_nan=False)
    return text.translate(_JSON_ESCAPES)


PACKED_TYPE = "application/x-checkbench-deflate"
PAGE_ENCODING = "latin-1"
"""How a file with packed blocks is written: each character below 256 as its byte (the
browser reads the bytes as windows-1252, which the script maps back)."""
_UNSAFE = re.compile(rb"[\x00\r<=]")
_ESCAPE = re.compile(rb"=(.)", re.S)


def pack(value: Any) -> tuple[str, str]:
    """(text encoding, packed text) of a block: its JSON in UTF-16LE where that is the shorter
    (mostly CJK text) else UTF-8, raw-deflated, escaped for script data, one character a byte."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    utf8 = text.encode("utf-8", "surrogatepass")
    encoding = "utf-16le" if len(utf8) > 2 * len(text) else "utf-8"
    raw = text.encode("utf-16-le", "surrogatepass") if encoding == "utf-16le" else utf8
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = deflate.compress(raw) + deflate.flush()
    escaped = _UNSAFE.sub(lambda m: b"=" + bytes([(m[0][0] + 64) & 255]), packed)
    return encoding, escaped.decode(PAGE_ENCODING)


def unpack(encoding: str, text: str) -> Any:
    """The value `pack` packed (what the page's script does, for tests and tools)."""
    packed = _ESCAPE.sub(lambda m: bytes([(m[1][0] - 64) & 255]), text.encode(PAGE_ENCODING))
    raw = zlib.decompress(packed, -15)
    return json.loads(raw.decode("utf-16-le" if encoding == "utf-16le" else "utf-8"))


_PACKED = re.compile(
    rf'<script type="{PACKED_TYPE}" id="([^"]+)" data-text="([^"]+)">(.*?)</script>', re.S
)


def packed_blocks(html: str) -> dict[str, Any]:
    """Every packed block of a page read as PAGE_ENCODING, by its id, unpacked."""
    return {m[1]: unpack(m[2], m[3]) for m in _PACKED.finditer(html)}


def read_page(path: Any) -> str:
    """A report file's text with its packed blocks unpacked into JSON: what a reader of the
    file can reach, for searching it whole (e.g. for a secret)."""
    data = open(path, "rb").read()  # noqa: SIM115, PTH123
    html = data.decode(PAGE_ENCODING if b'charset="windows-1252"' in data[:1024] else "utf-8")
    return _PACKED.sub(lambda m: script_json(unpack(m[2], m[3])), html)


def _ascii(source: str, css: bool) -> str:
    """`source` with each non-ASCII character escaped (as JavaScript or CSS writes it)."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match[0])
        if css:
            return f"\\{code:x} "
        units = match[0].encode("utf-16-be", "surrogatepass")
        return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))

    return re.sub(r"[^\x00-\x7f]", escape, source)


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


@dataclass(frozen=True)
class Page:
    """The HTML and the Content-Security-Policy it carries (a server sends it as a header)."""

    html: str
    policy: str
    encoding: str = "utf-8"
    """How the file is written (PAGE_ENCODING for a file's page)."""


def _packed_block(block_id: str, value: Any) -> str:
    encoding, packed = pack(value)
    attributes = f'type="{PACKED_TYPE}" id="{block_id}" data-text="{encoding}"'
    return f"<script {attributes}>{packed}</script>"


LAZY_SECTIONS = ("compare", "audit")
"""Sections of a file's page data that no first view needs: packed like the item records and
inflated before the first render, which keeps the file small (27 models: 1.8 MB of ASCII
JSON, most of it compare and audit figures)."""


def render_page(data: dict[str, Any], chunks: list[dict[str, Any]] | None = None) -> Page:
    """The report page. With `chunks` the item records are embedded (a file that opens
    offline); without, the page fetches them from the server that serves it."""
    served = chunks is None
    script = _ascii((ASSETS / "report.js").read_text(encoding="utf-8"), css=False)
    style = _ascii((ASSETS / "report.css").read_text(encoding="utf-8"), css=True)
    if "</" in script or "</" in style:
        raise ValueError("inline assets must not contain '</'")
    page = {**data, "mode": "served" if served else "file", "notation": NOTATION}
    lazy = {} if served else {k: page[k] for k in LAZY_SECTIONS if page.get(k) is not None}
    page.update(dict.fromkeys(lazy, True))  # the tab is there; the page inflates its data
    page_json = script_json(page, ascii_only=not served)
    blocks = [f'<script type="application/json" id="cb-data">{page_json}</script>']
    if lazy:
        blocks.append(_packed_block("cb-lazy", lazy))
    blocks += [_packed_block(f"cb-chunk-{n}", chunk) for n, chunk in enumerate(chunks or [])]
    template = (ASSETS / "page.html").read_text(encoding="utf-8")
    if not served:
        template = template.replace('<meta charset="utf-8">', '<meta charset="windows-1252">')
    head, rest = template.split("{{data}}")
    policy = content_security_policy(script, style, served=served)
    head = head.replace("{{csp}}", policy).replace("{{style}}", style)
    html = head + "\n".join(blocks) + rest.replace("{{script}}", script)
    return Page(html, policy, "utf-8" if served else PAGE_ENCODING)
