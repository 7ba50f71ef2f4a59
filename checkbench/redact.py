"""One redactor for every text that leaves checkbench: API keys and Authorization values out.

Backends register the value of each key variable they read; `redact` replaces those values and
any `Bearer ...` / `Authorization: ...` string before a text reaches stdout, logs, the store or
a report.
"""

from __future__ import annotations

import re
import threading

REDACTED = "[REDACTED]"
_MIN_SECRET = 6
"""Shorter values are not treated as secrets: replacing them would mangle ordinary text."""
_PATTERNS = (
    re.compile(
        r"(?i)(authorization(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?)(?:bearer\s+)?[^\s\"'\\,}]+"
    ),
    re.compile(r"(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{12,}"),
)
"""An Authorization header's value, and a Bearer token (long enough not to be prose); the
character classes stop at quotes and backslashes so that redacted JSON stays JSON."""
_secrets: tuple[str, ...] = ()
"""The registered secrets, longest first (replaced whole, as an immutable tuple: read lock-free)."""
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember a secret (an API key read from the environment) so `redact` removes it."""
    global _secrets
    if value and len(value) >= _MIN_SECRET:
        with _lock:
            _secrets = tuple(sorted({*_secrets, value}, key=len, reverse=True))


def redact(text: str) -> str:
    """`text` without any registered secret and without Authorization/Bearer values."""
    if not text:
        return text
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    lowered = text.lower()
    if "authorization" in lowered or "bearer" in lowered:  # a word each pattern needs
        for pattern in _PATTERNS:
            text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact_optional(text: str | None) -> str | None:
    """`redact` for a text that may be missing."""
    return None if text is None else redact(text)
