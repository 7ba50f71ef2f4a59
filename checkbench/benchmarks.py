"""Load a benchmark file into Items, whatever format it is in: checkbench Items (JSONL or a
JSON list) or a format a registered protocol loads (FB-Bench's released samples, SCAN's
released query files)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from checkbench import registry
from checkbench.choices import NATIVE_FORMAT
from checkbench.errors import InputError
from checkbench.inputs import input_file
from checkbench.jsonl import iter_json_records, iter_models
from checkbench.schema import Item

Loader = Callable[[Path], Iterable[Item]]
"""Reads a benchmark file into Items, validating each; a lazy loader reads as it is iterated."""


def _native(path: Path) -> Iterator[Item]:
    return (item for _, item in iter_models(path, Item))


def loaders() -> dict[str, Loader]:
    """The loaders by format: the native one, then each registered protocol's."""
    formats = registry.benchmark_formats()
    return {NATIVE_FORMAT: _native, **{name: fmt.load for name, fmt in formats.items()}}


def _first_record(path: Path) -> dict:
    """The first JSON object of a JSONL file or of a JSON list, for format sniffing."""
    return next(iter(iter_json_records(path)))[1]


def detect_format(path: Path) -> str:
    """Name of the first protocol format that fits the file's first record, else native."""
    record = _first_record(path)
    fits = (fmt.name for fmt in registry.benchmark_formats().values() if fmt.fits(record))
    return next(fits, NATIVE_FORMAT)


def iter_items(path: str | Path, fmt: str = "auto") -> Iterator[Item]:
    """Items from a benchmark file, validated one at a time as they are read (JSON Lines files
    in the native format are read line by line); `fmt` is 'auto' or one of `loaders()`. A bad or
    repeated record raises a located InputError when it is reached."""
    path = input_file(path)
    if fmt == "auto":
        fmt = detect_format(path)
    known = loaders()
    if fmt not in known:
        raise InputError(f"unknown format '{fmt}' (known: {', '.join(known)})", path=path)
    seen: set[str] = set()
    for number, item in enumerate(known[fmt](path), start=1):
        if item.id in seen:
            raise InputError(f"duplicate item id '{item.id}'", path=path, line=number, field="id")
        seen.add(item.id)
        yield item


def load_items(path: str | Path, fmt: str = "auto") -> list[Item]:
    """Every item of a benchmark file (see `iter_items`)."""
    return list(iter_items(path, fmt))
