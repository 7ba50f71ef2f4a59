"""SCAN's registration: its released query files, its commands (and their old name), its API
and its report section. Light: each hook imports the modules it needs when called."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from checkbench.registry import Alias, BenchmarkFormat, Protocol


def _load(path: Path) -> list[Any]:
    from checkbench.scan.queries import load_scan_queries

    return load_scan_queries(path)


def _is_query(record: Mapping[str, Any]) -> bool:
    return "prompt" in record and isinstance(record.get("meta_data"), dict)


def _cli() -> Any:
    from checkbench.scan.cli import app

    return app


def _taxonomy_section(run: Any) -> dict[str, Any] | None:
    from checkbench.scan.report import taxonomy_section

    return taxonomy_section(run)


def _tag_labels(run: Any) -> dict[str, dict[str, str]] | None:
    from checkbench.scan.report import tag_labels

    return tag_labels(run)


PROTOCOL = Protocol(
    name="scan",
    title="SCAN",
    formats=(BenchmarkFormat("scan", fits=_is_query, load=_load),),
    cli=_cli,
    aliases=(Alias("taxonomy", "scan"),),
    api={
        "checkbench.scan.api": (
            "taxonomy_build",
            "taxonomy_navigate",
            "taxonomy_pc2",
            "taxonomy_synthesize",
            "taxonomy_tag",
        ),
        "checkbench.scan.builder": ("TaxBuilderSettings", "TaxBuildResult"),
        "checkbench.scan.navigation": ("Navigation", "NavigationSettings"),
        "checkbench.scan.pc2": ("PC2Result", "PC2Settings"),
        "checkbench.scan.realmix": ("MixResult", "MixSettings"),
        "checkbench.scan.tagging": ("TagResult", "TagSettings"),
    },
    sections={"taxonomy": _taxonomy_section, "tag_labels": _tag_labels},
)
