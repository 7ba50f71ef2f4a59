"""The README's promises: CI runs its test command; the commands it shows exist."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def _fenced_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.*?)```", readme, flags=re.S)


def test_ci_runs_the_readme_test_command() -> None:
    test_command = next(block.strip() for block in _fenced_commands() if "pytest" in block)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_main_job_names_the_shipped_example() -> None:
    main_job = _fenced_commands()[0]
    example = re.search(r"examples/\S+", main_job)
    assert example is not None and (ROOT / example.group(0)).is_file()
