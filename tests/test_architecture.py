"""The house keeps its shape: layers import only downwards; a long module is pointed out."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "checkbench"
LONG_MODULE_LINES = 600
"""A module longer than this is worth a look (a warning, not a failure: rooms are drawn by what
belongs together, not by a line count)."""


def _lint_imports(config: Path) -> subprocess.CompletedProcess[str]:
    command = shutil.which("lint-imports")
    assert command, "import-linter is part of the test extra"
    return subprocess.run(
        [command, "--no-cache", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_import_contracts_hold() -> None:
    """The layers in pyproject.toml: no package imports one above it, protocols are siblings."""
    result = _lint_imports(ROOT / "pyproject.toml")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


def test_a_broken_layer_is_caught(tmp_path: Path) -> None:
    """The check can fail: the same layers in reverse order break the contract."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    start = text.index("layers = [")
    end = text.index("]", start)
    layers = [line for line in text[start:end].splitlines()[1:] if line.strip()]
    flipped = text[:start] + "layers = [\n" + "\n".join(reversed(layers)) + "\n" + text[end:]
    config = tmp_path / "pyproject.toml"
    config.write_text(flipped, encoding="utf-8")
    result = _lint_imports(config)
    assert result.returncode != 0
    assert "broken" in result.stdout


def test_long_modules_are_pointed_out() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert sizes, "no modules found"
    for path, lines in sorted(sizes.items()):
        if lines > LONG_MODULE_LINES:
            warnings.warn(f"{path} has {lines} lines (over {LONG_MODULE_LINES})", stacklevel=1)
