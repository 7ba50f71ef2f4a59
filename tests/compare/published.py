"""The authors' released FB-Bench judgments (6 models, 591 items), imported once per test
module; tests that need them skip where they are absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench import api
from tests.fbbench.test_published import JUDGMENTS

needs_data = pytest.mark.skipif(not JUDGMENTS.is_dir(), reason="FB-Bench released files absent")


@pytest.fixture(scope="module")
def published_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("published") / "run"
    api.import_fbbench_judgments(JUDGMENTS, run)
    return run
