"""Load a benchmark file into Items, whatever format it is in: checkbench Items (JSONL or a
JSON list), FB-Bench's released samples, or SCAN's released query files."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from checkbench.choices import BenchmarkFormat
from checkbench.errors import InputError
from checkbench.inputs import input_file
from checkbench.jsonl import iter_json_records, iter_models
from checkbench.schema import Item

Loader = Callable[[Path], Iterable[Item]]
"""Reads a benchmark file into Items, validating each; a lazy loader reads as it is iterated."""


def _native(path: Path) -> Iterator[Item]:
    return (item for _, item in iter_models(path, Item))


def _fbbench(path: Path) -> list[Item]:
    from checkbench.fbbench.dataset import load_fbbench

    return load_fbbench(path)


def _scan(path: Path) -> list[Item]:
    from checkbench.scan.queries import load_scan_queries

    return load_scan_queries(path)


LOADERS: dict[BenchmarkFormat, Loader] = {"native": _native, "fb-bench": _fbbench, "scan": _scan}
"""The loaders by format; the protocol packages are imported only by their own loader."""


def _first_record(path: Path) -> dict:
    """The first JSON object of a JSONL file or of a JSON list, for format sniffing."""
    return next(iter(iter_json_records(path)))[1]


def detect_format(path: Path) -> str:
    """Name of the loader that fits the file's first record."""
    record = _first_record(path)
    if "bench_type" in record and "checklist" in record:
        return "fb-bench"
    if "prompt" in record and isinstance(record.get("meta_data"), dict):
        return "scan"
    return "native"


def iter_items(path: str | Path, fmt: str = "auto") -> Iterator[Item]:
    """Items from a benchmark file, validated one at a time as they are read (JSON Lines files
    in the native format are read line by line); `fmt` is 'auto' or one of LOADERS. A bad or
    repeated record raises a located InputError when it is reached."""
    path = input_file(path)
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt not in LOADERS:
        raise InputError(f"unknown format '{fmt}' (known: {', '.join(LOADERS)})", path=path)
    seen: set[str] = set()
    for number, item in enumerate(LOADERS[fmt](path), start=1):
        if item.id in seen:
            raise InputError(f"duplicate item id '{item.id}'", path=path, line=number, field="id")
        seen.add(item.id)
        yield item


def load_items(path: str | Path, fmt: str = "auto") -> list[Item]:
    """Every item of a benchmark file (see `iter_items`)."""
    return list(iter_items(path, fmt))
