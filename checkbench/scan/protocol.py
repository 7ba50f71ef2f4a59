"""SCAN's registration: its released query files and its report section. Light: each hook
imports the modules it needs when called."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from checkbench.registry import BenchmarkFormat, Protocol


def _load(path: Path) -> list[Any]:
    from checkbench.scan.queries import load_scan_queries

    return load_scan_queries(path)


def _is_query(record: Mapping[str, Any]) -> bool:
    return "prompt" in record and isinstance(record.get("meta_data"), dict)


def _taxonomy_section(run: Any) -> dict[str, Any] | None:
    from checkbench.report.taxonomy import taxonomy_section

    return taxonomy_section(run)


PROTOCOL = Protocol(
    name="scan",
    title="SCAN",
    formats=(BenchmarkFormat("scan", fits=_is_query, load=_load),),
    sections={"taxonomy": _taxonomy_section},
)
