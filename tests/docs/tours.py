"""The tours the docs show, read from the pages: the README's "A tour of the CLI", then every
`bash` block of each guide in WALK, in order, as one walk in one scratch directory (each guide
goes on from the runs of the pages before it).

A command under a comment starting "Needs an endpoint" or "Needs the file" is skipped, up to the
next comment. A block that starts a background job (`... &`) is one step, run as a shell script.
The blocks of SLOW_BLOCKS, minutes of embedded-model work, are walked only with
CHECKBENCH_README_WALK=1.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

README = "README.md"
TOUR = "## A tour of the CLI"
"""The README's section that is walked (its set-up commands are CI's, see test_readme.py)."""
WALK = (
    README,
    "docs/fbbench.md",
    "docs/audit.md",
    "docs/ifrewardbench.md",
    "docs/judges.md",
    "docs/convbench.md",
    "docs/scan.md",
    "docs/models.md",
    "docs/compare.md",
)
"""The pages whose tours are walked, in the order they run: each goes on from the runs of the
ones before (the FB-Bench guide's runs/demo and runs/published serve the guides after it)."""
MARKERS = ("# Needs an endpoint", "# Needs the file")
WHOLE_WALK = "CHECKBENCH_README_WALK"
SLOW_BLOCKS = {
    "the Conv-to-Bench builds": "checkbench convbench build examples/logs-mini.jsonl",
    "the SCAN taxonomy commands": "checkbench scan build",
    "the samples example": "checkbench generate examples/feedback-mini.jsonl --out runs/k3",
}
"""The blocks (named by a command they start a line with) whose embedded-model work takes
minutes: walked only with CHECKBENCH_README_WALK=1, as docs/ci.md says."""
SHELLS = ("bash", "sh", "shell", "console")
"""The languages of fenced blocks a reader copies into a shell."""


@dataclass(frozen=True)
class Step:
    """One command of a tour as written (continuation lines joined), or a whole block that
    runs a background job; `skipped`: under a "Needs ..." comment; `slow`: in a block of
    SLOW_BLOCKS; `page`: where it is shown."""

    command: str
    skipped: bool
    slow: bool
    page: str


def shell_blocks(text: str) -> list[str]:
    """The fenced blocks of a Markdown text that a reader runs in a shell."""
    return re.findall(rf"```(?:{'|'.join(SHELLS)})\n(.*?)```", text, flags=re.S)


def _block_steps(block: str, page: str) -> list[Step]:
    slow = any(f"\n{command}" in f"\n{block}" for command in SLOW_BLOCKS.values())
    steps, command, skipped, in_comment = [], "", False, False
    for line in block.splitlines():
        if line.startswith("#"):
            skipped = line.startswith(MARKERS) or (skipped and in_comment)
            in_comment = True
            continue
        in_comment = False
        if not line.strip():
            continue
        command += line
        if line.endswith("\\"):
            command = command[:-1]
            continue
        steps.append(Step(command, skipped, slow, page))
        command = ""
    if any(step.command.rstrip().endswith("&") for step in steps):
        return [Step(block, False, slow, page)]
    return steps


def page_tour(page: str) -> list[str]:
    """The blocks a page's tour walks: the README's tour section, or all of a guide's."""
    text = (ROOT / page).read_text(encoding="utf-8")
    if page == README:
        text = text.split(TOUR, 1)[1].split("\n## ", 1)[0]
    return shell_blocks(text)


def tour_steps() -> list[Step]:
    """Every page's tour, in walk order."""
    return [
        step for page in WALK for block in page_tour(page) for step in _block_steps(block, page)
    ]


def checkbench_commands(block: str) -> list[str]:
    """The `checkbench` commands a shell block shows, continuation lines joined, comments and
    whitespace normalised: each line's `&&`-separated parts that start with `checkbench`."""
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True) if part.strip() else []
            if words[:1] == ["checkbench"]:
                commands.append(shlex.join(words))
    return commands


def shown_pages() -> list[Path]:
    """Every page of the docs: the README and docs/**/*.md."""
    return [ROOT / README, *sorted((ROOT / "docs").rglob("*.md"))]
