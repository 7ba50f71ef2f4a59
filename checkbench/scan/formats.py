"""Taxonomy file formats: checkbench's own and SCAN's released one, as plain JSON data.

- "checkbench": `{"name", "description", "domains": [{"name", "description", "children": [...]}]}`
  (`checkbench.scan.tree.Taxonomy`), names with descriptions.
- "scan": SCAN's release, a nested object of names only: domain -> node -> ... -> {} at the
  leaves, e.g. `{"coding": {"debugging": {"memory errors": {}}}, "writing": {}}`. Reading one
  gives empty descriptions and the taxonomy the file's name; writing one drops descriptions.

A file is read as "scan" when its top level is an object without a "domains" key and with at
least one object value; then every value at every level must be an object, and a name may
appear once among its siblings. Problems are located by the JSONPath of the node in the file as
written (`$.coding.debugging`, `$.writing["creative writing"]`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from checkbench.choices import TaxonomyFormat
from checkbench.errors import InputError
from checkbench.jsonl import loads

FORMATS: tuple[TaxonomyFormat, ...] = ("checkbench", "scan")
Loc = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class JsonObject(dict):
    """A parsed JSON object that remembers the keys it saw more than once (the last wins)."""

    repeated: list[str]


def _object(pairs: list[tuple[str, Any]]) -> JsonObject:
    obj = JsonObject(pairs)
    keys = [key for key, _ in pairs]
    obj.repeated = [key for index, key in enumerate(keys) if key in keys[:index]]
    return obj


MAX_LEVELS = 100
"""How deep a taxonomy may be; a deeper file is refused, never recursed into."""


def parse_json(text: str, path: str | Path) -> Any:
    """JSON text as data whose objects are JsonObjects; raises json.JSONDecodeError, or
    InputError for nesting deeper than a taxonomy of MAX_LEVELS levels can need."""
    return loads(text, path, limit=2 * MAX_LEVELS + 2, object_pairs_hook=_object)


def detect_format(data: Any) -> TaxonomyFormat:
    """ "scan" for a nested object of names, else "checkbench" (which then validates it)."""
    nested = isinstance(data, dict) and "domains" not in data
    if nested and any(isinstance(value, dict) for value in data.values()):
        return "scan"
    return "checkbench"


def nested_location(keys: tuple[str, ...]) -> str:
    """The JSONPath of a node of a nested file: ("writing", "short stories") ->
    '$.writing["short stories"]'."""
    return "$" + "".join(
        f".{key}" if _PLAIN_KEY.fullmatch(key) else f"[{json.dumps(key, ensure_ascii=False)}]"
        for key in keys
    )


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    kinds = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    kinds[list] = "an array"
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


def from_nested(data: Mapping[str, Any], *, name: str, path: str | Path) -> tuple[dict, dict]:
    """A SCAN nested taxonomy as checkbench data, and where each node sits in the file: native
    location (("domains", 0, "children", 1)) -> JSONPath. A node that is not an object, or a
    repeated name, is an InputError located in the file."""
    locations: dict[Loc, str] = {}

    def nodes(level: Mapping[str, Any], keys: tuple[str, ...], loc: Loc) -> list[dict]:
        repeated = getattr(level, "repeated", [])
        if repeated:
            where = nested_location((*keys, repeated[0]))
            raise InputError(f"name '{repeated[0]}' appears twice", path=path, field=where)
        children = []
        for index, (key, value) in enumerate(level.items()):
            here, where = (*loc, index), nested_location((*keys, key))
            if not isinstance(value, dict):
                raise InputError(
                    f"a node must be a JSON object ({{}} for a leaf), not {_json_kind(value)}",
                    path=path,
                    field=where,
                )
            locations[here] = where
            kids = nodes(value, (*keys, key), (*here, "children"))
            children.append({"name": key, "children": kids})
        return children

    return {"name": name, "domains": nodes(data, (), ("domains",))}, locations


def to_nested(domains: list[dict[str, Any]]) -> dict[str, Any]:
    """checkbench node data (name, children) as SCAN's nested object of names."""
    return {node["name"]: to_nested(node.get("children", [])) for node in domains}


def located(loc: Loc, locations: Mapping[Loc, str]) -> str:
    """Where in a nested file the deepest node that the checkbench location `loc` lies in
    was written ("$" when none)."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in locations:
            return locations[loc[:end]]
    return "$"
