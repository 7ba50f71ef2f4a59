"""What a capability name must be: a short phrase of plain words that names a skill, not a
piece of the request it came from.

A weak model names capabilities with fragments of the query ("mysettings.json", "kannst",
"1.1.提供错别字", "a"), which then nest into long chains of nonsense. So a name is refused, and
the model re-asked with the reason, when it

- has fewer than `MIN_CHARS` characters, more than `MAX_WORDS` words, or no letter at all;
- holds anything but letters, digits, blanks and the marks `- ' & + #` (a dot, slash, bracket
  or quote marks a file name, path, number list or code; underscores are read as blanks);
- occurs in the query, blanks, marks and case ignored ("15minuteslate" in "15 minutes late"): a
  copy, not a capability.

Every refusal says `NOT_A_NAME`, so the build can count these failures apart from others.
"""

from __future__ import annotations

import re

from checkbench.scan.paths import SEP

MIN_CHARS, MAX_WORDS = 2, 6
NOT_A_NAME = "not a capability name"
_ALLOWED = re.compile(r"^[\w\s\-'&+#]+$")


def _squashed(text: str) -> str:
    """Letters and digits only, case folded: the form names and queries are compared in."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def capability_name(raw: str) -> str:
    """A name as the tree keeps it: underscores as blanks, blanks collapsed, lowercase, no path
    separator, and a short phrase of plain words (ValueError saying why otherwise)."""
    name = " ".join(raw.replace("_", " ").split()).lower()
    if SEP in name:
        raise ValueError(f"the name '{name}' contains '{SEP}', which is not allowed")
    if len(name) < MIN_CHARS or not any(ch.isalpha() for ch in name):
        raise ValueError(f"'{name}' is {NOT_A_NAME}: use a short phrase of words")
    if not _ALLOWED.match(name):
        raise ValueError(
            f"'{name}' is {NOT_A_NAME}: it looks like a file name, path, number or code; "
            "name the skill in plain words"
        )
    if len(name.split()) > MAX_WORDS:
        raise ValueError(f"'{name}' is {NOT_A_NAME}: use at most {MAX_WORDS} words")
    return name


def not_copied(name: str, query: str) -> str:
    """The name, unless it is a verbatim piece of `query` (ValueError then)."""
    if _squashed(name) in _squashed(query):
        raise ValueError(
            f"'{name}' is {NOT_A_NAME}: it copies words of the request; name the skill the "
            "request needs, in words that would fit other requests too"
        )
    return name
