"""The docs build as a site: `mkdocs build --strict` fails on a broken link or a page left out
of the build, and the CLI reference is the one the Typer app generates today."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from checkbench.cli.reference import REFRESH, reference
from tests.conftest import ROOT


def test_cli_reference_is_fresh() -> None:
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == reference(), f"docs/cli.md is stale: run `{REFRESH}`"


def test_cli_reference_covers_every_command() -> None:
    page = reference()
    for command in ("run", "scan navigate", "fbbench filter", "fbbench import", "convbench build"):
        assert f"## `checkbench {command}`" in page
    assert "- `--judge-id TEXT`:" in page


PATH_IN_DOCS = re.compile(
    r"(?<![\w/-])((?:checkbench|tests|bench)/(?:[\w.-]+/)*(?:[\w-]+\.\w+|))(?![\w/])"
)
"""A path of the repository as the docs name it (`checkbench/scan/pc2/`, tests/x/test_y.py)."""


def test_every_path_the_docs_name_exists() -> None:
    """A module moved or renamed leaves no stale path in the README or the docs."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = {
        (page.name, path)
        for page in pages
        for path in PATH_IN_DOCS.findall(page.read_text(encoding="utf-8"))
    }
    assert len(named) > 20
    assert sorted((page, path) for page, path in named if not (ROOT / path).exists()) == []


@pytest.mark.skipif(find_spec("mkdocs") is None, reason="mkdocs is not installed")
def test_site_builds_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "fbbench" / "index.html").is_file()
    assert (tmp_path / "images" / "report.png").is_file()
