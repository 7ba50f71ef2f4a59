"""The README's promises: a front page of at most MAX_LINES lines; CI runs its test command;
the commands it shows exist; its links into docs/ resolve."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from tests.docs.tours import shell_blocks

MAX_LINES = 200
README = ROOT / "README.md"


def test_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines: move detail into docs/"


def test_ci_runs_the_readme_test_command() -> None:
    blocks = shell_blocks(README.read_text(encoding="utf-8"))
    test_command = next(block.strip() for block in blocks if "pytest" in block)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_main_job_names_the_shipped_example() -> None:
    main_job = shell_blocks(README.read_text(encoding="utf-8"))[0]
    example = re.search(r"examples/\S+", main_job)
    assert example is not None and (ROOT / example.group(0)).is_file()


def test_readme_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert any(target.startswith("docs/") for target in targets)
    missing = [target for target in targets if "://" not in target and not (ROOT / target).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
