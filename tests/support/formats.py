"""What a table command prints, read back in each `--format`, and runs of many models.

`parsed` reads a command's stdout as its format says (csv through the csv module, json through
json, markdown by its tables' header separator rows) and fails the test when it does not parse.
`fits` checks a table printed for a terminal: no line wider than it, every name whole on a
line, every number whole. `many_models` writes FB-Bench judgment files for any number of models
(made from the authors' 6 published ones, each under a long name) and imports them into a run.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.cells import cell_len

from tests.conftest import run_cli
from tests.fbbench.test_published import JUDGMENTS

FORMATS = ("table", "markdown", "csv", "json")
WIDTHS = (80, 120, 200)
COUNTS = (2, 6, 27)
CSV_HEADER = ["table", "row", "column", "value", "detail"]
SCORE = re.compile(r"(?<![\w.\-+\u2212])[+\-]?\d+\.\d\d(?![\w.])")
"""A number as a cell prints it (two decimals, maybe signed), not a version in a name."""
_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


def model_names(count: int) -> list[str]:
    """The 6 published models' names, then long vendor-style names up to `count`."""
    stems = sorted(path.stem for path in JUDGMENTS.glob("*.jsonl"))
    return [
        stems[k]
        if k < len(stems)
        else f"vendor-{k}/{stems[k % len(stems)]}-{7 * k}B-Instruct-2024-0{k % 9 + 1}"
        for k in range(count)
    ]


def many_models(count: int, tmp: Path, skip: tuple[int, str] | None = None) -> Path:
    """A run of `count` models imported from judgment files made from the published ones:
    model k answers as published model k mod 6, under `model_names(count)[k]`; `skip` (a
    model's index, a task) leaves that model without an answer to that task's items."""
    files = sorted(JUDGMENTS.glob("*.jsonl"))
    source = tmp / f"judgments-{count}"
    source.mkdir(parents=True)
    for k, name in enumerate(model_names(count)):
        lines = []
        for line in files[k % len(files)].read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if skip == (k, record["task_type"]):
                continue
            record["infer_model"] = name
            lines.append(json.dumps(record, ensure_ascii=False))
        (source / f"m{k}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run_dir = tmp / f"run-{count}"
    imported = run_cli("fbbench", "import", str(source), "-o", str(run_dir))
    assert imported.returncode == 0, imported.stderr
    return run_dir


def markdown_tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of `text`, each as rows of cells (the header first); a table's
    second line must be its header separator row (`|---|---:|`)."""
    tables: list[list[str]] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            tables.append(block)
            block = []
    assert tables, "no Markdown table"
    parsed = []
    for lines in tables:
        assert len(lines) >= 2 and _SEPARATOR.match(lines[1]), lines[:2]
        width = lines[1].count("|") - 1
        rows = [_cells(line) for line in [lines[0], *lines[2:]]]
        assert all(len(row) == width for row in rows), lines
        parsed.append(rows)
    return parsed


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def parsed(fmt: str, stdout: str) -> Any:
    """`stdout` read as `fmt` prints it: the JSON, the CSV's rows (dicts), the Markdown's
    tables, or the table's lines."""
    if fmt == "json":
        return json.loads(stdout)
    if fmt == "csv":
        reader = csv.DictReader(io.StringIO(stdout))
        assert reader.fieldnames == CSV_HEADER
        rows = list(reader)
        assert rows and all(None not in row for row in rows)  # no row longer than the header
        return rows
    if fmt == "markdown":
        return markdown_tables(stdout)
    return stdout.splitlines()


def fits(lines: list[str], width: int, names: Iterable[str], numbers: Iterable[str]) -> None:
    """A table for a terminal `width` wide: no line wider; each name whole on some line;
    each of `numbers` (as cells print them) printed whole, as often as it is given."""
    assert lines
    widest = max(lines, key=cell_len)
    assert cell_len(widest) <= width, widest
    for name in names:
        assert any(name in line for line in lines), f"{name} not whole on a line"
    printed = Counter(SCORE.findall("\n".join(re.sub(r"\[[^\]]*\]", "", line) for line in lines)))
    missing = Counter(numbers) - printed
    assert not missing, f"numbers not printed whole: {sorted(missing)[:10]}"
