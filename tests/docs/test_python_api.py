"""The Python API page runs as written: its Python block, in a scratch directory holding a copy
of examples/, on the embedded model."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGE = ROOT / "docs" / "python-api.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.slow
def test_the_python_api_page_runs_as_written(tmp_path: Path) -> None:
    blocks = _python_blocks()
    assert len(blocks) == 1
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    printed = io.StringIO()
    namespace: dict[str, object] = {}
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(blocks[0], str(PAGE), "exec"), namespace)
    finally:
        os.chdir(before)
    # the comment on the print line says what it prints
    assert printed.getvalue().splitlines()[0] == "fb-bench local:SmolLM2-135M-Instruct.Q4_1"
    board, strict = namespace["board"], namespace["strict"]
    assert board.model_dump() == namespace["result"].scores.model_dump()
    assert strict.policy == "exclude" and board.policy == "zero"
